/**
 * The agent's stdout as the tap reads it on its fast path: a connected pair of Unix sockets the tap makes itself
 * (the agent gets one end as its stdout, the same kind of stdout Node's own pipes give it), the tap reading the
 * other with `onread`: each read lands straight in a slab, with no stream machinery around it, and the chunk handed
 * on (to the editor, and to the analyzer as its copy) is a view of that slab. Slabs are never written over, so a
 * copy held for the analyzer stays valid without copying it.
 *
 * Why: in front of an agent streaming at full speed, the tap's share of a 2-core machine is what the stream pays for
 * it. Node's readable streams cost the tap about 120 ms of CPU per 200,000 chunks (npm run bench, (a)); a bare
 * `onread` loop with direct writes about 50 ms.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Reads land in slabs of this size; a slab is left for a new one once less than `MIN_WINDOW` of it is free. */
const SLAB_BYTES = 4 * 1024 * 1024;
const MIN_WINDOW = 64 * 1024;
/** The most one read may bring (a Unix socket holds a few hundred KiB). */
const MAX_WINDOW = 1024 * 1024;

/** Where reads land: windows of slabs that are never written over. */
export class SlabWindows {
  #slab: Uint8Array = new Uint8Array(0);
  #at = 0;
  readonly #slabBytes: number;

  constructor(slabBytes = SLAB_BYTES) {
    this.#slabBytes = Math.max(slabBytes, MIN_WINDOW);
  }

  /** The memory the next read goes to. */
  window(): Uint8Array {
    if (this.#slab.length - this.#at < MIN_WINDOW) {
      this.#slab = Buffer.allocUnsafeSlow(this.#slabBytes);
      this.#at = 0;
    }
    return this.#slab.subarray(this.#at, Math.min(this.#slab.length, this.#at + MAX_WINDOW));
  }

  /** The read filled the first `bytes` of the last window: they are taken (and returned, as a view). */
  take(window: Uint8Array, bytes: number): Uint8Array {
    this.#at += bytes;
    return window.subarray(0, bytes);
  }
}

/** The two ends of the agent's output. */
export interface AgentOutput {
  /** Give this to the agent as its stdout (`launchAgent({ stdout })`, which closes the tap's copy). */
  agentEnd: Socket;
  /** The tap's end: `onChunk` gets what the agent wrote; it ends when every holder of the agent's end closed it. */
  tapEnd: Socket;
}

/**
 * Makes the pair. `onChunk` gets each read (a view the tap may keep); returning false pauses reading until
 * `tapEnd.resume()`. Resolves with undefined where there is no such pair to be had (Windows, or no private
 * directory for the socket): the caller reads a plain pipe instead.
 */
export async function openAgentOutput(onChunk: (chunk: Uint8Array) => boolean): Promise<AgentOutput | undefined> {
  if (process.platform === "win32") return undefined;
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), "acp-tap-"));
  } catch {
    return undefined;
  }
  const server = createServer({ pauseOnConnect: true });
  try {
    const path = join(dir, "out");
    await listen(server, path);
    const accepted = new Promise<Socket>((resolve) => server.once("connection", resolve));
    const slabs = new SlabWindows();
    // Node asks for the next window after each callback, so a window is taken before the next one is given out.
    const tapEnd = connect({
      path,
      allowHalfOpen: true,
      onread: {
        buffer: () => slabs.window(),
        callback: (bytes: number, window: Uint8Array) => onChunk(slabs.take(window, bytes)),
      },
    });
    const connected = new Promise<void>((resolve, reject) => {
      tapEnd.once("connect", resolve);
      tapEnd.once("error", reject);
    });
    await connected;
    const agentEnd = await accepted;
    return { agentEnd, tapEnd };
  } catch {
    return undefined;
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
