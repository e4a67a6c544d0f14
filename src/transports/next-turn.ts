/**
 * The next turn of the event loop, after pending I/O callbacks: `setImmediate` where there is one (Node, Bun), a
 * `MessageChannel` in browsers, else a zero timer. For work that must let the rest of the process run first (other
 * connections' input and output) without the millisecond a timer costs in Node.
 */

let macrotask: ((run: () => void) => void) | undefined;

/** Runs `run` on a later turn of the event loop. */
export function nextTurn(run: () => void): void {
  macrotask ??= makeMacrotask();
  macrotask(run);
}

/** A promise that resolves on the next turn of the event loop. */
export function afterThisTurn(): Promise<void> {
  return new Promise<void>((resolve) => nextTurn(resolve));
}

function makeMacrotask(): (run: () => void) => void {
  const immediate = (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate;
  if (typeof immediate === "function") return (run) => void immediate(run);
  if (typeof MessageChannel === "function") {
    const queue: Array<() => void> = [];
    const channel = new MessageChannel();
    // Typed structurally: the library compiles without the DOM lib, where a port's `onmessage` is declared.
    (channel.port1 as unknown as { onmessage: (() => void) | null }).onmessage = () => queue.shift()?.();
    return (run) => {
      queue.push(run);
      channel.port2.postMessage(undefined);
    };
  }
  return (run) => void setTimeout(run, 0);
}
