/**
 * The reference agent's stdio entry: an `AgentSideConnection` on this process's stdin/stdout, the toolkit agent
 * with an on-disk `FileSessionStore` (under `<data dir>/sessions`; the data dir is `--data-dir`, else
 * `ACPKIT_DATA_DIR`, else the platform's per-user data directory) or, given `--store postgres://...`, a
 * `PostgresSessionStore` (one process at a time writes a session: a session open in another agent process is
 * refused with a clear error), and the MCP connector (stdio, HTTP and SSE MCP
 * servers, advertised in `mcpCapabilities`). Logs go to stderr only: stdout is the protocol.
 * @see https://agentclientprotocol.com/protocol/transports#stdio
 */
import path from "node:path";
import { AgentSideConnection } from "@acpkit/sdk";
import { AgentSideConnection as UnstableAgentSideConnection } from "@acpkit/sdk/unstable";
import { FileSessionStore, PostgresSessionStore, type PostgresOptions } from "@acpkit/sdk/node";
import type { Logger } from "@acpkit/sdk";
import type { SessionStore } from "@acpkit/sdk/agent-toolkit";
import { stdioStream } from "@acpkit/sdk/node";
import { AGENT_INFO, referenceAgent } from "./agent.js";
import { stderrLogger, type LogLevel } from "./logger.js";
import { referenceMcpConnector } from "./mcp.js";
import type { ModelConfig } from "./model/config.js";

export interface ReferenceAgentOptions {
  /** The data directory; sessions live in its `sessions` folder. */
  dataDir?: string;
  /** A `postgres://` URL: sessions live in that database instead (`PostgresSessionStore`). */
  store?: string;
  /** How long to wait for a session another process holds (default 12 s: a dead holder's lease lapses in 10); 0: fail at once. */
  storeWaitMs?: number;
  /** The session lease's time to live in the PostgreSQL store (default: the store's, 10 s). */
  storeLeaseMs?: number;
  model?: ModelConfig;
  /** Default timeout of `/run` and the model's `run_command`. Default 30 s. */
  runTimeoutMs?: number;
  /** How long a `/grep` search may run before it is stopped. Default 10 s. */
  grepTimeLimitMs?: number;
  logLevel?: LogLevel;
  /** Speak the unstable protocol (`@acpkit/sdk/unstable`): MCP servers the client serves over ACP, `session/fork`. */
  unstable?: boolean;
}

export const DEFAULT_RUN_TIMEOUT_MS = 30_000;
/** `--store-wait`'s default: longer than a lease (10 s), so the sessions of an agent process that died load. */
export const DEFAULT_STORE_WAIT_MS = 12_000;

/** The session store could not be opened (the message says why and what to do; the password never appears). */
export class SessionStoreUnavailable extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "SessionStoreUnavailable";
  }
}

/** The store `options` ask for, and where it is (for the log line). */
async function openStore(
  options: ReferenceAgentOptions,
  logger: Logger,
): Promise<{ store: SessionStore; where: string }> {
  if (options.store === undefined) {
    const store = new FileSessionStore({
      ...(options.dataDir ? { dir: path.join(options.dataDir, "sessions") } : {}),
      logger,
    });
    return { store, where: store.dir };
  }
  const connection: PostgresOptions = { connectionString: options.store, applicationName: "acp agent", logger };
  try {
    const wait = options.storeWaitMs ?? DEFAULT_STORE_WAIT_MS;
    const store = await PostgresSessionStore.open({
      connection,
      logger,
      ...(options.storeLeaseMs === undefined ? {} : { leaseTtlMs: options.storeLeaseMs }),
      ...(wait > 0 ? { whenLeased: "wait" as const, leaseWaitMs: wait } : {}),
    });
    return { store, where: store.database };
  } catch (error) {
    const detail = scrub(error instanceof Error ? error.message : String(error), options.store);
    throw new SessionStoreUnavailable(`cannot open the session store (--store): ${detail}`, error);
  }
}

/** `text` without the password of `url` (raw or URL-encoded) or any `scheme://user:password@`. */
function scrub(text: string, url: string): string {
  let out = text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)[^@/?#\s]+@/gi, "$1***@");
  let password = "";
  try {
    password = new URL(url).password;
  } catch {
    // Not a URL pg would take either; the pattern above masks what looks like one.
  }
  for (const secret of new Set([password, safeDecode(password)]))
    if (secret.length > 0) out = out.split(secret).join("***");
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Serves the reference agent on stdio; resolves when the client has gone and the store is flushed. */
export async function runReferenceAgent(options: ReferenceAgentOptions = {}): Promise<void> {
  const logger = stderrLogger(options.logLevel ?? "warn");
  const { store, where } = await openStore(options, logger);
  const mcp = referenceMcpConnector(
    logger,
    { name: AGENT_INFO.name, version: AGENT_INFO.version },
    options.unstable === true,
  );
  const settings = {
    model: options.model,
    runTimeoutMs: options.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS,
    grepTimeLimitMs: options.grepTimeLimitMs,
    logger,
    mcp,
  };
  const Connection = options.unstable ? UnstableAgentSideConnection : AgentSideConnection;
  const connection = new Connection((conn) => referenceAgent(conn, store, settings), stdioStream(), { logger });
  logger.info("the reference agent is listening on stdio", {
    sessions: where,
    model: options.model?.model ?? null,
  });
  await connection.closed;
  await store.close?.();
}
