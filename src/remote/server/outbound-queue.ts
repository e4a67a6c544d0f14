/**
 * One outbound stream's queue: the serialized agent messages waiting for the client's reader (an SSE response body),
 * oldest first. At most one reader at a time; messages queue while there is none.
 */

/** What reads a queue: woken when a message arrives or the queue ends. */
export interface QueueReader {
  wake(): void;
}

/** A FIFO of JSON texts with one optional reader. Accounting is the owner's: `onTake` reports what left. */
export class OutboundQueue {
  #items: string[] = [];
  #head = 0;
  #chars = 0;
  #reader: QueueReader | undefined;
  #ended = false;

  /**
   * @param onTake called with the UTF-16 length of what a reader took (progress, for the owner's accounting)
   * @param onReaderChange called after a reader attached or left
   */
  constructor(
    private readonly onTake: (chars: number) => void,
    private readonly onReaderChange?: (queue: OutboundQueue) => void,
  ) {}

  get hasReader(): boolean {
    return this.#reader !== undefined;
  }

  get isEmpty(): boolean {
    return this.#head === this.#items.length;
  }

  /** UTF-16 units queued. */
  get chars(): number {
    return this.#chars;
  }

  /** True once `end()` was called: the reader finishes after the last queued message. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Queues one message's JSON text; ignored once ended. Returns whether it was queued. */
  push(text: string): boolean {
    if (this.#ended) return false;
    this.#items.push(text);
    this.#chars += text.length;
    this.#reader?.wake();
    return true;
  }

  /**
   * Takes queued messages, oldest first, until about `maxChars` are taken (always at least one when any is queued).
   * Advances a head index instead of shifting, and compacts when most of the array is taken.
   */
  take(maxChars: number): string[] {
    const taken: string[] = [];
    let chars = 0;
    while (this.#head < this.#items.length && (taken.length === 0 || chars < maxChars)) {
      const text = this.#items[this.#head]!;
      this.#items[this.#head] = "";
      this.#head++;
      taken.push(text);
      chars += text.length;
    }
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    this.#chars -= chars;
    if (chars > 0) this.onTake(chars);
    return taken;
  }

  /** Attaches the reader; false when another one is attached. */
  attach(reader: QueueReader): boolean {
    if (this.#reader !== undefined) return false;
    this.#reader = reader;
    this.onReaderChange?.(this);
    return true;
  }

  /** Detaches `reader` if it is the one attached. */
  detach(reader: QueueReader): void {
    if (this.#reader !== reader) return;
    this.#reader = undefined;
    this.onReaderChange?.(this);
  }

  /** No more messages: the reader ends once it has taken what is queued. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#reader?.wake();
  }

  /** Drops everything queued and ends; returns the UTF-16 units dropped (not reported to `onTake`). */
  drop(): number {
    const dropped = this.#chars;
    this.#items = [];
    this.#head = 0;
    this.#chars = 0;
    this.end();
    return dropped;
  }
}
