/**
 * An `acp serve --cluster` cluster for one test file: a temp directory, a real PostgreSQL, the nodes
 * (./serve-cluster.ts) and the participants the file opens, started in `before` and stopped in `after`. When
 * `unavailable` says why the file cannot run here (no PostgreSQL, no HAProxy), `start()` does nothing and the file's
 * tests skip on the same reason.
 */
import { startTestPostgres, type TestPostgres } from "../../../../src/node/testing/postgres-server.js";
import { makeTempDir, removeTempDir } from "../../interop/support/temp.js";
import { acpkitParticipant, type TestParticipant } from "../../shared/support/participants.js";
import { startServeCluster, type ServeCluster, type ServeClusterOptions } from "./serve-cluster.js";

export interface ServeClusterFile {
  /** The running cluster (a test that runs before `start()` finished is a mistake: this throws then). */
  readonly cluster: ServeCluster;
  /** The cluster once started, else undefined (for failure messages). */
  readonly started: ServeCluster | undefined;
  /** The participants opened through `participant` and `participantAt`, in order. */
  readonly open: TestParticipant[];
  /** A temp directory for the sessions' `cwd`, removed by `stop()`. */
  readonly work: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** A sharing-aware acpkit participant through node `node`, closed by `stop()`. */
  participant(name: string, node: number, profile?: "http" | "websocket"): Promise<TestParticipant>;
  /** The same at `url` over Streamable HTTP (a load balancer's, say). */
  participantAt(name: string, url: string): Promise<TestParticipant>;
}

export function serveClusterFile(
  tempPrefix: string,
  unavailable: string | undefined,
  options: ServeClusterOptions,
): ServeClusterFile {
  let database: TestPostgres | undefined;
  let cluster: ServeCluster | undefined;
  let work: string | undefined;
  const open: TestParticipant[] = [];
  const running = (): ServeCluster => {
    if (cluster === undefined) throw new Error("the cluster is not running: start() it in before()");
    return cluster;
  };
  const join = async (name: string, url: string, webSocketUrl: string, profile: "http" | "websocket") => {
    const { token } = running();
    const made = await acpkitParticipant(name, { url, webSocketUrl, token }, profile, token, true);
    open.push(made);
    return made;
  };
  return {
    open,
    get cluster() {
      return running();
    },
    get started() {
      return cluster;
    },
    get work() {
      if (work === undefined) throw new Error("no work directory: start() the cluster in before()");
      return work;
    },
    async start() {
      if (unavailable !== undefined) return;
      work = makeTempDir(tempPrefix);
      database = await startTestPostgres();
      cluster = await startServeCluster(database, options);
    },
    async stop() {
      for (const participant of open) participant.close();
      await cluster?.stop();
      await database?.close();
      if (work !== undefined) removeTempDir(work);
    },
    participant(name, node, profile = "http") {
      const { url, webSocketUrl } = running().nodes[node]!.process;
      return join(name, url, webSocketUrl, profile);
    },
    participantAt(name, url) {
      return join(name, url, "", "http");
    },
  };
}
