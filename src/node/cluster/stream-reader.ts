/**
 * One reader of one stream of a cluster connection, on any node: events come from the database in id order, after
 * the reader's position (the `Last-Event-ID` it was opened at, or what earlier readers took), fetched when the
 * owner's writes are notified (`e:<connection id> <stream>`), and every second meanwhile in case a notification was missed.
 * The stream's row in `acpkit_cluster_streams` names its reader: one at a time; a reader opened with a cursor takes
 * the stream over and the displaced one ends. The reader ends once the connection has ended and every event written
 * before was handed over.
 */
import type { Logger } from "../../jsonrpc/logger.js";
import type { Refusal, StreamReader } from "../../remote/server/backend/backend.js";
import { encodeSse, sseEventText } from "../../remote/server/sse-format.js";
import type { PostgresPool } from "../postgres/pool.js";
import { newReaderToken } from "./ids.js";
import type { QueryLimiter } from "./query-limiter.js";
import { CONNECTIONS, EVENTS, NODES, STREAMS } from "./schema.js";

const RESOLVED = Promise.resolve();
/** Events fetched per query. */
const FETCH_ROWS = 2000;
/** Fetch more when fewer than this many events are buffered. */
const LOW_WATER = 500;
/** How often a waiting reader looks even without a notification. */
const POLL_MS = 1000;

/** What a reader needs of its node. */
export interface ReaderHost {
  readonly pool: PostgresPool;
  readonly logger: Logger;
  readonly nodeId: string;
  /** How long a reader's claim on its stream lasts without renewal (the node renews it while the reader is open). */
  readonly readerLeaseMs: number;
  /** A node that has not beaten for this long is taken for dead (its readers' claims are void). */
  readonly deadAfterMs: number;
  /** Bounds the readers' fetches in flight on the pool (the owners' writes share it). */
  readonly readerQueries: QueryLimiter;
  attach(reader: ClusterStreamReader): void;
  detach(reader: ClusterStreamReader): void;
}

/**
 * Claims a stream: with a cursor ($5) always (a resuming client takes it over); without, only when it has no live
 * reader: none, an expired claim, or one whose node stopped beating (it died: its clients come back without a cursor
 * when they had no event yet, and must not wait for the claim to expire).
 */
const CLAIM = `
INSERT INTO ${STREAMS} AS s (connection_id, stream, reader, reader_node, reader_expires_at, taken)
VALUES ($1, $2, $3, $6, now() + $4 * interval '1 millisecond', 0)
ON CONFLICT (connection_id, stream) DO UPDATE
   SET reader = EXCLUDED.reader, reader_node = EXCLUDED.reader_node, reader_expires_at = EXCLUDED.reader_expires_at
 WHERE $5 OR s.reader IS NULL OR s.reader_expires_at < now()
    OR NOT EXISTS (SELECT 1 FROM ${NODES} n
                    WHERE n.node_id = s.reader_node AND n.seen_at > now() - $7 * interval '1 millisecond')
RETURNING s.taken`;

/** Opens a reader of `stream` ('' = the connection stream) at `cursor`, or says why not. */
export async function openClusterStream(
  host: ReaderHost,
  connectionId: string,
  stream: string,
  cursor: string | undefined,
): Promise<ClusterStreamReader | Refusal> {
  let position: number | undefined;
  if (cursor !== undefined) {
    if (!/^\d{1,15}$/.test(cursor))
      return {
        status: 400,
        message: `Bad Request: Last-Event-ID "${cursor.slice(0, 40)}" is not an event id of this stream; resume with the id of the last event received, or open the stream without it`,
      };
    position = Number(cursor);
  }
  const token = newReaderToken();
  const claimed = await host.pool.query<{ taken: string }>(CLAIM, [
    connectionId,
    stream,
    token,
    host.readerLeaseMs,
    position !== undefined,
    host.nodeId,
    host.deadAfterMs,
  ]);
  if (claimed.rows.length === 0) {
    const what = stream === "" ? "the connection stream" : `the stream of session "${stream}"`;
    return {
      status: 409,
      message: `Conflict: ${what} is already open in another request; one reader per stream (a client resuming after a break sends Last-Event-ID, which takes the stream over)`,
    };
  }
  const reader = new ClusterStreamReader(host, connectionId, stream, token, position ?? Number(claimed.rows[0]!.taken));
  host.attach(reader);
  reader.wake();
  return reader;
}

export class ClusterStreamReader implements StreamReader {
  readonly #buffer: { id: number; body: string }[] = [];
  #head = 0;
  /** The id of the last event handed over. */
  #position: number;
  /** The id of the last event fetched. */
  #fetched: number;
  #fetching = false;
  #again = false;
  #ended = false;
  #released = false;
  /** The node is handing over: no more reads, and no end either (the response breaks, and the client resumes). */
  #abandoned = false;
  /** The connection ended and a fetch after that found nothing more. */
  #endSeen = false;
  #waiting: (() => void) | undefined;
  #poll: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly host: ReaderHost,
    readonly connectionId: string,
    readonly stream: string,
    readonly token: string,
    position: number,
  ) {
    this.#position = position;
    this.#fetched = position;
  }

  /** The id of the last event handed over (persisted as the stream's `taken`). */
  get position(): number {
    return this.#position;
  }

  get #available(): number {
    return this.#buffer.length - this.#head;
  }

  get ended(): boolean {
    return this.#released || (this.#ended && this.#available === 0);
  }

  take(maxChars: number): Uint8Array | undefined {
    if (this.#released || this.#available === 0) return undefined;
    let text = "";
    let chars = 0;
    while (this.#head < this.#buffer.length && (chars === 0 || chars < maxChars)) {
      const event = this.#buffer[this.#head++]!;
      text += sseEventText(event.id, event.body);
      chars += event.body.length;
      this.#position = event.id;
    }
    if (this.#head > 4096) {
      this.#buffer.splice(0, this.#head);
      this.#head = 0;
    }
    if (this.#available < LOW_WATER) this.wake();
    return encodeSse(text);
  }

  wait(): Promise<void> {
    if (this.ended || this.#available > 0) return RESOLVED;
    this.wake();
    return new Promise<void>((resolve) => (this.#waiting = resolve));
  }

  /**
   * The node is handing its connections over: the reader stops reading but does not end, so its response is cut when
   * the server goes rather than ended (a client takes an ended connection stream for the end of the connection; a
   * broken one it resumes with Last-Event-ID on another node).
   */
  abandon(): void {
    this.#abandoned = true;
    if (this.#poll !== undefined) clearTimeout(this.#poll);
  }

  /** Something may have been written (a notification, a poll): fetch. */
  wake(): void {
    if (this.#released || this.#ended || this.#abandoned) return;
    if (this.#fetching) {
      this.#again = true;
      return;
    }
    if (this.#available >= LOW_WATER) return;
    void this.#fetch();
  }

  /**
   * Another reader took the stream over (`why` says how it was found), or the connection is gone (no `why`): end,
   * after what is buffered, with the end event (the client does not resume it).
   */
  displaced(why?: string): void {
    if (why !== undefined && !this.#ended)
      this.host.logger.info("cluster: a stream was taken over by another reader; this one ends", {
        connectionId: this.connectionId,
        stream: this.stream === "" ? "connection" : this.stream,
        found: why,
      });
    this.#ended = true;
    this.#notify();
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    if (this.#poll !== undefined) clearTimeout(this.#poll);
    this.host.detach(this);
    this.#notify();
    // Abandoned: the pool may be closed already; the claim lapses with the node's heartbeats.
    if (this.#abandoned) return;
    this.host.pool
      .query(
        `UPDATE ${STREAMS} SET reader = NULL, taken = GREATEST(taken, $4)
          WHERE connection_id = $1 AND stream = $2 AND reader = $3`,
        [this.connectionId, this.stream, this.token, this.#position],
      )
      .catch((error: unknown) =>
        this.host.logger.warn("cluster: could not release a stream (it is freed when its claim expires)", {
          connectionId: this.connectionId,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
  }

  #notify(): void {
    const resolve = this.#waiting;
    this.#waiting = undefined;
    resolve?.();
  }

  async #fetch(): Promise<void> {
    this.#fetching = true;
    if (this.#poll !== undefined) clearTimeout(this.#poll);
    this.#poll = undefined;
    try {
      do {
        this.#again = false;
        const rows = await this.host.readerQueries.run(() =>
          this.host.pool.query<{ event_id: string; body: string }>(
            `SELECT event_id, body FROM ${EVENTS}
              WHERE connection_id = $1 AND stream = $2 AND event_id > $3 ORDER BY event_id LIMIT ${FETCH_ROWS}`,
            [this.connectionId, this.stream, this.#fetched],
          ),
        );
        if (this.#released) return;
        for (const row of rows.rows) this.#buffer.push({ id: Number(row.event_id), body: row.body });
        if (rows.rows.length > 0) {
          this.#fetched = this.#buffer[this.#buffer.length - 1]!.id;
          this.#notify();
          if (rows.rows.length === FETCH_ROWS && this.#available < LOW_WATER) this.#again = true;
          continue;
        }
        if (this.#endSeen) {
          this.displaced();
          return;
        }
        // Nothing new: is the stream still ours, and the connection still live?
        const status = await this.host.readerQueries.run(() =>
          this.host.pool.query<{ reader: string | null; ended: boolean | null }>(
            `SELECT (SELECT reader FROM ${STREAMS} WHERE connection_id = $1 AND stream = $2) AS reader,
                    (SELECT ended_at IS NOT NULL FROM ${CONNECTIONS} WHERE connection_id = $1) AS ended`,
            [this.connectionId, this.stream],
          ),
        );
        const row = status.rows[0];
        if (row === undefined || row.reader !== this.token) {
          this.displaced(row === undefined ? "no stream row" : "reading");
          return;
        }
        if (row.ended !== false) {
          // Ended: what the owner wrote before is visible now; one more fetch takes it, then the reader ends.
          this.#endSeen = true;
          this.#again = true;
        }
      } while (this.#again && !this.#released);
    } catch (error) {
      this.host.logger.warn("cluster: reading a stream failed; retrying", {
        connectionId: this.connectionId,
        error: error instanceof Error ? error.message : String(error),
      });
    } finally {
      this.#fetching = false;
    }
    if (!this.#released && !this.#ended && !this.#abandoned) {
      this.#poll = setTimeout(() => this.wake(), POLL_MS);
      this.#poll.unref?.();
    }
  }
}
