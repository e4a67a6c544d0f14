/**
 * Cluster nodes in this process for a test file: `listenAcp` servers with shared sessions, each with its own
 * `PostgresServerBackend` (its own pool and LISTEN connection) on one real PostgreSQL started for the file. Call
 * `start()` in `before` and `close()` in `after`; without PostgreSQL on this machine `start()` does nothing (the
 * file's steps skip on `postgresUnavailable()`).
 */
import type { AgentConnector } from "../../../../src/acp/agent-connector.js";
import { silentLogger } from "../../../../src/jsonrpc/logger.js";
import { PostgresServerBackend } from "../../../../src/node/cluster/index.js";
import { listenAcp } from "../../../../src/node/server/listen.js";
import {
  postgresUnavailable,
  startTestPostgres,
  type TestPostgres,
} from "../../../../src/node/testing/postgres-server.js";
import type { TestParticipant } from "../../shared/support/participants.js";

export type Listening = Awaited<ReturnType<typeof listenAcp>>;

export interface PostgresNodes {
  /** The nodes' servers, in the order of their names (filled by `start()`). */
  readonly servers: Listening[];
  /** Participants the file opened: `close()` closes them first. */
  readonly open: TestParticipant[];
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Nodes named `names`, all serving `agent` behind `token`. */
export function postgresNodes(
  agent: AgentConnector,
  token: string,
  names: readonly string[] = ["a", "b"],
): PostgresNodes {
  let database: TestPostgres | undefined;
  const backends: PostgresServerBackend[] = [];
  const servers: Listening[] = [];
  const open: TestParticipant[] = [];
  return {
    servers,
    open,
    async start() {
      if (postgresUnavailable() !== undefined) return;
      database = await startTestPostgres();
      for (const nodeName of names) {
        const backend = await PostgresServerBackend.open({
          database: { connectionString: database.connectionString, logger: silentLogger },
          nodeName,
        });
        backends.push(backend);
        servers.push(await listenAcp({ agent, backend, token, sharedSessions: true, logger: silentLogger }));
      }
    },
    async close() {
      for (const participant of open) participant.close();
      await Promise.all(servers.map((server) => server.close()));
      await Promise.all(backends.map((backend) => backend.close()));
      await database?.close();
    },
  };
}
