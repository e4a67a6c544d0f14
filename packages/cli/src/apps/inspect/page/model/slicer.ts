/**
 * Work in time slices: records from the feed are queued and processed a few milliseconds at a time, yielding to the
 * browser between slices, so a burst of 100,000 frames never holds the main thread for longer than a slice and the
 * page keeps painting and answering keys while it catches up.
 */
export class Slicer<T> {
  readonly #queue: T[] = [];
  #head = 0;
  #scheduled = false;
  readonly #channel = new MessageChannel();

  constructor(
    private readonly handle: (item: T) => void,
    private readonly budgetMs = 8,
  ) {
    this.#channel.port1.onmessage = () => this.#run();
  }

  /** Items waiting. */
  get pending(): number {
    return this.#queue.length - this.#head;
  }

  push(item: T): void {
    this.#queue.push(item);
    if (!this.#scheduled) {
      this.#scheduled = true;
      this.#channel.port2.postMessage(0);
    }
  }

  #run(): void {
    const end = performance.now() + this.budgetMs;
    while (this.#head < this.#queue.length && performance.now() < end) this.handle(this.#queue[this.#head++]!);
    if (this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
      this.#scheduled = false;
      return;
    }
    if (this.#head > 4096) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    // After a slice, the next one waits for a task turn: rendering and input come first when they are due.
    setTimeout(() => this.#run(), 0);
  }
}
