/**
 * Group commit: many small writes coalesced into one statement. Callers `add` an item and get a promise; the items
 * added in the same tick (and those added while the previous batch is being written) go to `write` together, one
 * call per batch, batches strictly one after another and in `add` order. Each promise settles when its batch's write
 * settles: resolved (with the item's result) once `write` resolved, which for a `pool.query` INSERT means committed;
 * rejected with the batch's error otherwise. `multiRowInsert` builds the one statement.
 */

export interface WriteBatcherOptions<T, R> {
  /**
   * Writes one batch durably and resolves when it is (e.g. one multi-row INSERT through the pool, which commits on
   * its own). May return one result per item, in order (e.g. `RETURNING id`): each caller's promise resolves with its
   * own. A rejection rejects every item of the batch.
   */
  readonly write: (items: readonly T[]) => Promise<readonly R[] | void>;
  /** Items per batch at most (default 500); more wait for the next batch. */
  readonly maxBatch?: number;
  /** Wait this long for more items before writing (default 0: the next turn of the event loop). */
  readonly delayMs?: number;
}

interface Waiter<T, R> {
  readonly item: T;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

/** Coalesces `add`s into batched `write`s. */
export class WriteBatcher<T, R = void> {
  readonly #write: WriteBatcherOptions<T, R>["write"];
  readonly #maxBatch: number;
  readonly #delayMs: number;
  #queue: Waiter<T, R>[] = [];
  #scheduled = false;
  #writing: Promise<void> | undefined;
  #closed = false;
  #batches = 0;

  constructor(options: WriteBatcherOptions<T, R>) {
    this.#write = options.write;
    this.#maxBatch = Math.max(1, options.maxBatch ?? 500);
    this.#delayMs = Math.max(0, options.delayMs ?? 0);
  }

  /** Items waiting to be written (not counting the batch being written). */
  get pending(): number {
    return this.#queue.length;
  }

  /** Batches written (or attempted) so far. */
  get batches(): number {
    return this.#batches;
  }

  /** Queues `item`; resolves with its result once its batch is written, rejects with the batch's error. */
  add(item: T): Promise<R> {
    if (this.#closed) return Promise.reject(new Error("acpkit: the write batcher is closed; nothing more is accepted"));
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  /** Resolves once everything added so far is written (or failed). */
  async flush(): Promise<void> {
    while (this.#queue.length > 0 || this.#writing !== undefined || this.#scheduled) {
      if (this.#writing !== undefined) await this.#writing;
      else await this.#drain();
    }
  }

  /** Refuses new items and resolves once the queued ones are written. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  #schedule(): void {
    if (this.#scheduled || this.#writing !== undefined) return;
    this.#scheduled = true;
    if (this.#delayMs > 0) setTimeout(() => void this.#drain(), this.#delayMs);
    else setImmediate(() => void this.#drain());
  }

  /** Writes batches until the queue is empty; one at a time. */
  async #drain(): Promise<void> {
    this.#scheduled = false;
    if (this.#writing !== undefined) return this.#writing;
    const run = async () => {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.#maxBatch);
        await this.#writeBatch(batch);
      }
    };
    this.#writing = run().finally(() => {
      this.#writing = undefined;
    });
    return this.#writing;
  }

  async #writeBatch(batch: Waiter<T, R>[]): Promise<void> {
    this.#batches++;
    let results: readonly R[] | void;
    try {
      results = await this.#write(batch.map((waiter) => waiter.item));
    } catch (error) {
      for (const waiter of batch) waiter.reject(error);
      return;
    }
    if (results !== undefined && results.length !== batch.length) {
      const error = new Error(
        `acpkit: a batched write returned ${results.length} results for ${batch.length} items; ` +
          "return one per item, in order, or none",
      );
      for (const waiter of batch) waiter.reject(error);
      return;
    }
    batch.forEach((waiter, index) => waiter.resolve(results === undefined ? (undefined as R) : results[index]!));
  }
}

/** A statement and its parameters. */
export interface Statement {
  readonly text: string;
  readonly values: unknown[];
}

/**
 * `INSERT INTO table (columns) VALUES ($1, $2), ($3, $4) ... suffix`: one statement for many rows. `suffix` is
 * appended as is (`ON CONFLICT DO NOTHING`, `RETURNING id`). Table and columns are quoted identifiers
 * (`schema.table` allowed). PostgreSQL takes at most 65,535 parameters: rows x columns must stay below.
 */
export function multiRowInsert(
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  suffix = "",
): Statement {
  if (columns.length === 0) throw new TypeError("multiRowInsert needs at least one column");
  if (rows.length === 0) throw new TypeError("multiRowInsert needs at least one row");
  if (rows.length * columns.length > 65_535)
    throw new RangeError(
      `multiRowInsert: ${rows.length} rows x ${columns.length} columns is over PostgreSQL's 65,535 parameters; ` +
        "lower the batcher's maxBatch",
    );
  const values: unknown[] = [];
  const tuples = rows.map((row) => {
    if (row.length !== columns.length)
      throw new TypeError(`multiRowInsert: a row has ${row.length} values for ${columns.length} columns`);
    const placeholders = row.map((value) => {
      values.push(value);
      return `$${values.length}`;
    });
    return `(${placeholders.join(", ")})`;
  });
  const target = table
    .split(".")
    .map((part) => quote(part))
    .join(".");
  const text = `INSERT INTO ${target} (${columns.map(quote).join(", ")}) VALUES ${tuples.join(", ")}`;
  return { text: suffix === "" ? text : `${text} ${suffix}`, values };
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
