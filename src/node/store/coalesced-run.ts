/**
 * One run at a time of an expensive read (the store's directory scan for `session/list`), shared: a caller that
 * comes while a run is going waits for the next one, which every caller arriving meanwhile shares. So a burst of a
 * thousand `session/list` requests costs two scans, not a thousand scans each holding every session's metadata at
 * once, and each caller still sees what was written before it asked.
 */
export class CoalescedRun<T> {
  #running: Promise<T> | undefined;
  #queued: Promise<T> | undefined;

  constructor(private readonly run: () => Promise<T>) {}

  /** The result of a run that started after this call. */
  get(): Promise<T> {
    if (this.#running === undefined) {
      const running = this.run().finally(() => {
        if (this.#running === running) this.#running = undefined;
      });
      this.#running = running;
      return running;
    }
    this.#queued ??= this.#running.then(
      () => this.#next(),
      () => this.#next(),
    );
    return this.#queued;
  }

  #next(): Promise<T> {
    this.#queued = undefined;
    return this.get();
  }
}
