/**
 * The agent's stdout as the tap reads it on its fast path: a connected pair of Unix sockets the tap makes itself
 * (the agent gets one end as its stdout, the same kind of stdout Node's own pipes give it), the tap reading the
 * other with `onread`: each read lands straight in a slab, with no stream machinery around it, and the chunk handed
 * on (to the editor, and to the analyzer as its copy) is a view of that slab. Slabs are never written over, so a
 * copy held for the analyzer stays valid without copying it.
 *
 * Why: in front of an agent streaming at full speed, the tap's share of a 2-core machine is what the stream pays for
 * it. Over the 200,000 chunks of npm run bench's (a), Node's readable streams cost the tap's main thread about 110 ms
 * of CPU; `onread` into slabs with direct writes about 70 ms, of which about 25 ms were the first touch of the slabs'
 * fresh pages; with those pages mapped ahead by an idle-priority thread, about 48 ms.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PrefaultedSlabs } from "./prefaulted-slabs.js";

/** Reads land in slabs of this size; a slab is left for a new one once less than `MIN_WINDOW` of it is free. */
const SLAB_BYTES = 4 * 1024 * 1024;
const MIN_WINDOW = 64 * 1024;
/** Slabs whose pages are mapped ahead of the reads (./prefaulted-slabs.ts): 8 MiB, a tenth of a second of (a). */
const SLABS_AHEAD = 2;
/** The most one read may bring (a Unix socket holds a few hundred KiB). */
const MAX_WINDOW = 1024 * 1024;

/** Where reads land: windows of slabs that are never written over. */
export class SlabWindows {
  #slab: Uint8Array = new Uint8Array(0);
  #at = 0;
  readonly #slabBytes: number;
  readonly #newSlab: (bytes: number) => Uint8Array;

  /** `newSlab` gives the memory of a new slab (default: allocated on the spot). */
  constructor(
    slabBytes = SLAB_BYTES,
    newSlab: (bytes: number) => Uint8Array = (bytes) => Buffer.allocUnsafeSlow(bytes),
  ) {
    this.#slabBytes = Math.max(slabBytes, MIN_WINDOW);
    this.#newSlab = newSlab;
  }

  /** The memory the next read goes to. */
  window(): Uint8Array {
    if (this.#slab.length - this.#at < MIN_WINDOW) {
      this.#slab = this.#newSlab(this.#slabBytes);
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
 * Makes the pair, the tap's end paused: `tapEnd.resume()` once whatever `onChunk` feeds is ready. `onChunk` gets each
 * read (a view the tap may keep); returning false pauses reading until `tapEnd.resume()`. Resolves with undefined where there is no such pair to be had (Windows, or no private
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
    const prefaulted = new PrefaultedSlabs(SLAB_BYTES, SLABS_AHEAD);
    const slabs = new SlabWindows(SLAB_BYTES, () => prefaulted.take());
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
    tapEnd.once("close", () => prefaulted.close());
    await connected;
    tapEnd.pause();
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
