/**
 * The owner's writes, batched (group commit): stream events, the sessions its agents opened, the prompts they have
 * yet to answer (and those answered). One statement per batch, fenced: a row is written only for a connection whose
 * row still names this node with the lease token the write was made under, checked under a row lock (`FOR SHARE`),
 * so an adoption that took the lease first excludes the write and one that comes after waits for it to commit. A
 * connection whose writes were excluded is reported as fenced (its node must stop its agent). Notifies the readers
 * (`e:<connection id> <stream>`: only that stream's reader fetches) in the same transaction: they are woken once the
 * events are visible.
 */
import type { PostgresPool } from "../postgres/pool.js";
import { WriteBatcher } from "../postgres/write-batcher.js";
import { CLUSTER_CHANNEL, CONNECTIONS, EVENTS, PROMPTS, SESSIONS } from "./schema.js";

/** One write of an owner. */
export type OwnerWrite =
  | {
      readonly kind: "event";
      readonly connectionId: string;
      readonly token: number;
      readonly stream: string;
      readonly id: number;
      readonly body: string;
    }
  | {
      readonly kind: "session";
      readonly connectionId: string;
      readonly token: number;
      readonly sessionId: string;
      /** `{ cwd, mcpServers }` of the request that opened it (kept over a row written without). */
      readonly params: string | undefined;
    }
  | {
      readonly kind: "prompt";
      readonly connectionId: string;
      readonly token: number;
      /** A client's prompt to the agent, or an agent's request to the client. */
      readonly requestKind: "prompt" | "client";
      readonly key: string;
      readonly sessionId: string;
      readonly requestId: string;
    }
  | { readonly kind: "answered"; readonly connectionId: string; readonly token: number; readonly key: string };

const STATEMENT = `
WITH claimed AS (
  SELECT DISTINCT connection_id, token FROM unnest($1::text[], $2::bigint[]) AS o(connection_id, token)
), owned AS (
  SELECT c.connection_id FROM ${CONNECTIONS} c JOIN claimed o
    ON c.connection_id = o.connection_id AND c.lease_token = o.token AND c.owner_node = $3
  FOR SHARE OF c
), ev AS (
  INSERT INTO ${EVENTS} (connection_id, stream, event_id, body)
  SELECT t.connection_id, t.stream, t.event_id, t.body
    FROM unnest($4::text[], $5::text[], $6::bigint[], $7::text[]) AS t(connection_id, stream, event_id, body)
   WHERE t.connection_id IN (SELECT connection_id FROM owned)
  ON CONFLICT DO NOTHING
  RETURNING connection_id, stream
), se AS (
  INSERT INTO ${SESSIONS} AS x (connection_id, session_id, params)
  SELECT s.connection_id, s.session_id, s.params
    FROM unnest($8::text[], $9::text[], $16::text[]) AS s(connection_id, session_id, params)
   WHERE s.connection_id IN (SELECT connection_id FROM owned)
  ON CONFLICT (connection_id, session_id) DO UPDATE SET params = COALESCE(EXCLUDED.params, x.params)
), pr AS (
  INSERT INTO ${PROMPTS} (connection_id, request_key, session_id, request_id, kind)
  SELECT p.connection_id, p.request_key, p.session_id, p.request_id, p.kind
    FROM unnest($10::text[], $11::text[], $12::text[], $13::text[], $17::text[])
      AS p(connection_id, request_key, session_id, request_id, kind)
   WHERE p.connection_id IN (SELECT connection_id FROM owned)
  ON CONFLICT DO NOTHING
), pd AS (
  DELETE FROM ${PROMPTS} p USING unnest($14::text[], $15::text[]) AS d(connection_id, request_key)
   WHERE p.connection_id = d.connection_id AND p.request_key = d.request_key
     AND d.connection_id IN (SELECT connection_id FROM owned)
), notified AS (
  SELECT count(pg_notify('${CLUSTER_CHANNEL}', 'e:' || connection_id || ' ' || stream)) AS n
    FROM (SELECT DISTINCT connection_id, stream FROM ev) x
)
SELECT o.connection_id, n.n FROM owned o, notified n`;

export interface EventWriterOptions {
  readonly pool: PostgresPool;
  readonly nodeId: string;
  /** Writes of these connections were excluded: another node holds their lease now. */
  readonly onFenced: (connectionIds: readonly string[]) => void;
}

/** Batches an owner's writes into one fenced statement per batch. */
export class EventWriter {
  readonly #batcher: WriteBatcher<OwnerWrite>;
  readonly #options: EventWriterOptions;

  constructor(options: EventWriterOptions) {
    this.#options = options;
    this.#batcher = new WriteBatcher<OwnerWrite>({ write: (items) => this.#write(items), maxBatch: 2000 });
  }

  /** Writes pending. */
  get pending(): number {
    return this.#batcher.pending;
  }

  /** Queues a write; resolves once it is committed (or excluded by fencing), rejects when the batch failed. */
  add(write: OwnerWrite): Promise<void> {
    return this.#batcher.add(write);
  }

  flush(): Promise<void> {
    return this.#batcher.flush();
  }

  close(): Promise<void> {
    return this.#batcher.close();
  }

  async #write(items: readonly OwnerWrite[]): Promise<void> {
    const claims = new Map<string, number>();
    const ev: [string[], string[], number[], string[]] = [[], [], [], []];
    const se: [string[], string[]] = [[], []];
    const seParams: (string | null)[] = [];
    const prKinds: string[] = [];
    const sessionAt = new Map<string, number>();
    const opened = new Map<string, Extract<OwnerWrite, { kind: "prompt" }>>();
    const pr: [string[], string[], string[], string[]] = [[], [], [], []];
    const pd: [string[], string[]] = [[], []];
    for (const item of items) {
      claims.set(item.connectionId, item.token);
      if (item.kind === "event") {
        ev[0].push(item.connectionId);
        ev[1].push(item.stream);
        ev[2].push(item.id);
        ev[3].push(item.body);
      } else if (item.kind === "session") {
        // One row per session in a statement (an upsert may not touch a row twice): the params, if any, win.
        const key = `${item.connectionId}\u0000${item.sessionId}`;
        const at = sessionAt.get(key);
        if (at !== undefined) seParams[at] = item.params ?? seParams[at]!;
        else {
          sessionAt.set(key, se[0].length);
          se[0].push(item.connectionId);
          se[1].push(item.sessionId);
          seParams.push(item.params ?? null);
        }
      } else if (item.kind === "prompt") {
        opened.set(`${item.connectionId}\u0000${item.key}`, item);
      } else if (!opened.delete(`${item.connectionId}\u0000${item.key}`)) {
        // Opened in an earlier batch (answered in the same one: neither written, as the statement's parts do not see
        // each other's rows).
        pd[0].push(item.connectionId);
        pd[1].push(item.key);
      }
    }
    for (const item of opened.values()) {
      pr[0].push(item.connectionId);
      pr[1].push(item.key);
      pr[2].push(item.sessionId);
      pr[3].push(item.requestId);
      prKinds.push(item.requestKind);
    }
    const { pool, nodeId } = this.#options;
    // Idempotent (ON CONFLICT DO NOTHING, deletes by key): a batch whose commit is unknown may run again.
    const result = await pool.retry("write cluster events", () =>
      pool.query<{ connection_id: string }>(STATEMENT, [
        [...claims.keys()],
        [...claims.values()],
        nodeId,
        ...ev,
        ...se,
        ...pr,
        ...pd,
        seParams,
        prKinds,
      ]),
    );
    const owned = new Set(result.rows.map((row) => row.connection_id));
    const fenced = [...claims.keys()].filter((id) => !owned.has(id));
    if (fenced.length > 0) this.#options.onFenced(fenced);
  }
}
