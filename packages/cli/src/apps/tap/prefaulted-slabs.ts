/**
 * Slabs for the tap's reads whose pages are already mapped. A read into fresh memory faults in each page it touches
 * (in this project's 2-core VM: about 26 ms of CPU per 40 MB, a third of what forwarding (a)'s stream costs the tap),
 * and the tap's copies for the analyzer must be fresh memory: they are held while the stream flows. A worker thread
 * at idle priority (./slab-prefaulter.ts) touches the pages of the next slabs ahead of time; the tap takes a ready
 * slab when there is one and allocates one itself when there is not, so the stream never waits for the worker.
 */
import { Worker } from "node:worker_threads";

const PREFAULTER = new URL("./slab-prefaulter.js", import.meta.url);

export class PrefaultedSlabs {
  readonly #bytes: number;
  readonly #ahead: number;
  readonly #ready: Uint8Array[] = [];
  #worker: Worker | undefined;
  #requested = 0;

  /** Keeps up to `ahead` slabs of `bytes` ready (0: none, every slab allocated on the spot). */
  constructor(bytes: number, ahead: number) {
    this.#bytes = bytes;
    this.#ahead = ahead;
    if (ahead <= 0) return;
    try {
      this.#worker = new Worker(PREFAULTER, { stdout: true, stderr: true });
    } catch {
      return;
    }
    this.#worker.unref();
    this.#worker.on("message", (slab: SharedArrayBuffer) => {
      this.#requested--;
      this.#ready.push(new Uint8Array(slab));
    });
    this.#worker.on("error", () => (this.#worker = undefined));
    this.#refill();
  }

  /** How many prefaulted slabs are waiting to be taken. */
  get ready(): number {
    return this.#ready.length;
  }

  /** A slab: a prefaulted one if one is ready, else a fresh one. */
  take(): Uint8Array {
    const slab = this.#ready.shift() ?? Buffer.allocUnsafeSlow(this.#bytes);
    this.#refill();
    return slab;
  }

  /** Stops the worker; slabs taken stay valid. */
  close(): void {
    void this.#worker?.terminate();
    this.#worker = undefined;
  }

  #refill(): void {
    while (this.#worker && this.#ready.length + this.#requested < this.#ahead) {
      this.#requested++;
      this.#worker.postMessage({ bytes: this.#bytes });
    }
  }
}
