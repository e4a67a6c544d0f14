/**
 * The reference agent's stdio entry: an `AgentSideConnection` on this process's stdin/stdout, the toolkit agent
 * with an on-disk `FileSessionStore` (under `<data dir>/sessions`; the data dir is `--data-dir`, else
 * `ACPKIT_DATA_DIR`, else the platform's per-user data directory), and the MCP connector (stdio, HTTP and SSE MCP
 * servers, advertised in `mcpCapabilities`). Logs go to stderr only: stdout is the protocol.
 * @see https://agentclientprotocol.com/protocol/transports#stdio
 */
import path from "node:path";
import { AgentSideConnection } from "@acpkit/sdk";
import { AgentSideConnection as UnstableAgentSideConnection } from "@acpkit/sdk/unstable";
import { FileSessionStore } from "@acpkit/sdk/node";
import { stdioStream } from "@acpkit/sdk/node";
import { AGENT_INFO, referenceAgent } from "./agent.js";
import { stderrLogger, type LogLevel } from "./logger.js";
import { referenceMcpConnector } from "./mcp.js";
import type { ModelConfig } from "./model/config.js";

export interface ReferenceAgentOptions {
  /** The data directory; sessions live in its `sessions` folder. */
  dataDir?: string;
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

/** Serves the reference agent on stdio; resolves when the client has gone and the store is flushed. */
export async function runReferenceAgent(options: ReferenceAgentOptions = {}): Promise<void> {
  const logger = stderrLogger(options.logLevel ?? "warn");
  const store = new FileSessionStore({
    ...(options.dataDir ? { dir: path.join(options.dataDir, "sessions") } : {}),
    logger,
  });
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
    sessions: store.dir,
    model: options.model?.model ?? null,
  });
  await connection.closed;
  await store.close();
}
