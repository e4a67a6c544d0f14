/**
 * LISTEN/NOTIFY on a dedicated connection that heals itself. PostgreSQL delivers a notification only to sessions
 * listening when it is committed: while the connection is down (the server restarting, a network cut), notifications
 * are lost. So the listener reconnects by itself (backoff, for as long as it is open), LISTENs again on every channel,
 * and then calls `onResync`: the owner re-reads the state the notifications were about. A periodic `SELECT 1` finds
 * a connection that died silently (a half-open TCP connection sends no error).
 */
import type { PgClient, PgNotification, PgQueryable } from "./pg-types.js";
import type { PostgresPool } from "./pool.js";
import { backoffDelay, type RetryOptions } from "./retry.js";

export interface PostgresListenerOptions {
  /** The channels to LISTEN on from the start (more with `listen`). */
  readonly channels: readonly string[];
  /** A notification (payload "" when none was given). A throw is logged; the listener carries on. */
  readonly onNotification: (channel: string, payload: string) => void;
  /**
   * The connection was lost and is back, LISTENing again: notifications sent in between were lost. Re-read the state
   * they are about. `downMs`: how long it was down; `cause`: why it was lost.
   */
  readonly onResync?: (info: { readonly downMs: number; readonly cause: Error }) => void;
  /** The connection was just lost (the listener is reconnecting). */
  readonly onDisconnect?: (error: Error) => void;
  /** The waits between reconnection attempts (default 100 ms doubling to 5,000 ms, with jitter). */
  readonly reconnect?: Pick<RetryOptions, "initialDelayMs" | "maxDelayMs">;
  /** The bound of the first connection (default: the pool's retry bound); after that, reconnection never stops. */
  readonly startRetry?: RetryOptions;
  /** Check the connection with `SELECT 1` this often (default 15,000 ms; 0: never); no answer in that time: lost. */
  readonly healthCheckMs?: number;
}

/** A running listener. */
export interface PostgresListener {
  /** Whether the connection is up and LISTENing now. */
  readonly connected: boolean;
  /** The channels listened to (also while reconnecting). */
  readonly channels: readonly string[];
  /** Starts listening on `channel` too (at once if connected, else on reconnection). */
  listen(channel: string): Promise<void>;
  /** Stops listening on `channel`. */
  unlisten(channel: string): Promise<void>;
  /** Closes the connection; no more callbacks. */
  close(): Promise<void>;
}

/**
 * Opens the dedicated connection and LISTENs; resolves once listening. The first connection is retried within the
 * pool's bound (rejects with `PostgresUnavailableError` after it); later losses are reconnected without bound.
 */
export async function listenPostgres(pool: PostgresPool, options: PostgresListenerOptions): Promise<PostgresListener> {
  const channels = new Set(options.channels.map(checkChannel));
  const reconnect = { initialDelayMs: 100, maxDelayMs: 5_000, ...options.reconnect };
  const healthCheckMs = options.healthCheckMs ?? 15_000;
  let current: PgClient | undefined;
  let closed = false;
  let healthTimer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const dispatch = (message: PgNotification): void => {
    if (!channels.has(message.channel)) return;
    try {
      options.onNotification(message.channel, message.payload ?? "");
    } catch (error) {
      pool.logger.error(`postgres: a notification handler for '${message.channel}' threw: ${describe(error)}`);
    }
  };

  const connectOnce = async (): Promise<void> => {
    const client = pool.createClient();
    // Until it is current, a failing client is only this attempt's problem (connect() rejects).
    client.on("error", (error) => lost(client, error));
    client.on("end", () => lost(client, new Error("the listening connection ended")));
    client.on("notification", dispatch);
    try {
      await client.connect();
      for (const channel of channels) await client.query(`LISTEN ${quoteIdentifier(channel)}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw pool.redact(error);
    }
    if (closed) {
      await client.end().catch(() => undefined);
      return;
    }
    current = client;
    if (healthCheckMs > 0) {
      healthTimer = setInterval(() => void healthCheck(client), healthCheckMs);
      healthTimer.unref();
    }
  };

  const healthCheck = async (client: PgClient): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to a health check in ${healthCheckMs} ms`)), healthCheckMs);
    });
    try {
      await Promise.race([client.query("SELECT 1"), timeout]);
    } catch (error) {
      lost(client, error instanceof Error ? error : new Error(String(error)));
    } finally {
      clearTimeout(timer);
    }
  };

  const lost = (client: PgClient, error: Error): void => {
    if (closed || client !== current) return;
    current = undefined;
    clearInterval(healthTimer);
    const cause = pool.redact(error);
    client.end().catch(() => undefined);
    pool.logger.warn(`postgres: the LISTEN connection to ${pool.database} was lost (${cause.message}); reconnecting`);
    try {
      options.onDisconnect?.(cause);
    } catch (handlerError) {
      pool.logger.error(`postgres: onDisconnect threw: ${describe(handlerError)}`);
    }
    void reconnectLoop(cause);
  };

  const reconnectLoop = async (cause: Error): Promise<void> => {
    const downSince = performance.now();
    for (let attempt = 1; !closed; attempt++) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoffDelay(attempt, reconnect));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      if (closed) return;
      try {
        await connectOnce();
      } catch (error) {
        pool.logger.debug(`postgres: reconnecting the LISTEN connection failed: ${describe(error)}`, { attempt });
        continue;
      }
      if (closed) return;
      pool.logger.info(`postgres: the LISTEN connection to ${pool.database} is back`);
      try {
        options.onResync?.({ downMs: performance.now() - downSince, cause });
      } catch (error) {
        pool.logger.error(`postgres: onResync threw: ${describe(error)}`);
      }
      return;
    }
  };

  await pool.retry("listen", connectOnce, options.startRetry);

  return {
    get connected() {
      return current !== undefined;
    },
    get channels() {
      return [...channels];
    },
    listen: async (channel) => {
      checkChannel(channel);
      if (channels.has(channel)) return;
      channels.add(channel);
      await current?.query(`LISTEN ${quoteIdentifier(channel)}`).catch((error: unknown) => {
        // The connection is going: the reconnection LISTENs on it.
        if (current !== undefined) throw pool.redact(error);
      });
    },
    unlisten: async (channel) => {
      if (!channels.delete(channel)) return;
      await current?.query(`UNLISTEN ${quoteIdentifier(channel)}`).catch(() => undefined);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(healthTimer);
      wake?.();
      const client = current;
      current = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}

/**
 * Sends a notification (`pg_notify`): delivered when the surrounding transaction commits (at once outside one).
 * PostgreSQL limits a payload to 8,000 bytes: send ids, not data.
 */
export async function notifyPostgres(db: PgQueryable, channel: string, payload = ""): Promise<void> {
  await db.query("SELECT pg_notify($1, $2)", [checkChannel(channel), payload]);
}

function checkChannel(channel: string): string {
  if (channel.length === 0 || Buffer.byteLength(channel) > 63)
    throw new TypeError(`a channel name is 1 to 63 bytes long, not '${channel}'`);
  return channel;
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
