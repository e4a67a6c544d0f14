/**
 * Streamable HTTP across three nodes, on the in-memory backend and on the PostgreSQL backend, in the same run: three
 * `listenAcp` servers in this process sharing one `MemoryServerBackend`, then three each with its own
 * `PostgresServerBackend` (own pool, own LISTEN) on one real PostgreSQL 15 started by the bench; the agent is the
 * cluster scenarios' stdio fixture. Every request of a connection goes to another node: `initialize` on A, POSTs on B,
 * the streams on C. Rows (median of the repetitions):
 * - a streamed turn: chunks/s from the prompt's POST to its answer on the session stream;
 * - prompt round trips: one-chunk prompts one after another, ms each (POST on B, answer read on C).
 * And the failover time: three `acp serve --cluster` processes (the reference agent) behind HAProxy, acpkit's HTTP
 * client; SIGKILL of the node running the connection's agent to the next successful prompt on the same connection;
 * median of 5. `run.ts` runs it after the protocol rows (BENCH_CLUSTER=0 leaves it out; BENCH_ONLY=cluster runs only
 * it).
 */
import { silentLogger } from "../src/jsonrpc/logger.js";
import { PostgresServerBackend } from "../src/node/cluster/index.js";
import { listenAcp } from "../src/node/server/listen.js";
import { stdioAgentConnector } from "../src/node/server/stdio-agent-connector.js";
import { haproxyUnavailable } from "../src/node/testing/haproxy.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../src/node/testing/postgres-server.js";
import { MemoryServerBackend } from "../src/remote/server/backend/memory-backend.js";
import type { ServerBackend } from "../src/remote/server/backend/backend.js";
import { del, mustOpen, post, type ClusterTarget } from "../test/e2e/cluster/support/node-client.js";
import { initialize } from "../test/e2e/cluster/support/scenarios.js";
import { fixturePath } from "../test/e2e/interop/support/spawn.js";
import { measureFailover } from "./cluster-failover.js";
import { fmtNum, fmtRate, fmtRatio, median, table } from "./stats.js";

export interface ClusterSizes {
  chunks: number;
  roundTrips: number;
  failovers: number;
}

export const clusterSizes = (quick: boolean): ClusterSizes =>
  quick ? { chunks: 2_000, roundTrips: 20, failovers: 3 } : { chunks: 20_000, roundTrips: 100, failovers: 5 };

type Kind = "memory" | "postgres";
export interface ClusterFigures {
  chunksPerSec: number[];
  roundTripMs: number[];
}
export interface ClusterBenchResult {
  sizes: ClusterSizes;
  reps: number;
  skipped?: string;
  error?: string;
  figures: Partial<Record<Kind, ClusterFigures>>;
  failoverMs?: number[];
  failoverSkipped?: string;
  leaseMs: number;
}

const LEASE_MS = 2000;

/** One measured repetition on three nodes: a streamed turn, then prompt round trips. */
async function measure(
  target: ClusterTarget,
  sizes: ClusterSizes,
): Promise<{ chunksPerSec: number; roundTripMs: number }> {
  const [a, b, c] = target.nodes as [string, string, string];
  const connectionId = await initialize(target, a);
  const connectionStream = await mustOpen(target, c, { connectionId });
  const created = await post(
    target,
    b,
    { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } },
    { connectionId },
  );
  if (created.status !== 202) throw new Error(`session/new: ${created.status} ${created.text}`);
  const sessionId: string = (await connectionStream.expect("session/new")).data.result.sessionId;
  const stream = await mustOpen(target, c, { connectionId, sessionId });
  const prompt = (id: number, text: string) =>
    post(
      target,
      b,
      { jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text }] } },
      { connectionId, sessionId },
    );
  const answered = async (id: number) => {
    for (;;) if ((await stream.expect(`the answer to ${id}`)).data.id === id) return;
  };
  let started = performance.now();
  await prompt(3, `stream ${sizes.chunks}`);
  await answered(3);
  const chunksPerSec = sizes.chunks / ((performance.now() - started) / 1000);
  const times: number[] = [];
  for (let i = 0; i < sizes.roundTrips; i++) {
    started = performance.now();
    await prompt(10 + i, "hello");
    await answered(10 + i);
    times.push(performance.now() - started);
  }
  await stream.close();
  await connectionStream.close();
  await del(target, a, connectionId);
  return { chunksPerSec, roundTripMs: median(times) };
}

async function threeNodes(
  backends: () => Promise<ServerBackend[]>,
  kind: Kind,
  sizes: ClusterSizes,
  reps: number,
  progress: (s: string) => void,
): Promise<ClusterFigures> {
  const agent = stdioAgentConnector({ argv: [process.execPath, fixturePath("cluster-agent"), "--stdio"] });
  const list = await backends();
  const servers = await Promise.all(
    list.map((backend) =>
      listenAcp({ agent, backend, insecureNoToken: true, logger: silentLogger, maxRetainedBytes: 64 * 1024 * 1024 }),
    ),
  );
  const figures: ClusterFigures = { chunksPerSec: [], roundTripMs: [] };
  try {
    const target = { nodes: servers.map((server) => server.url) };
    await measure(target, { ...sizes, chunks: Math.ceil(sizes.chunks / 10), roundTrips: 5 }); // warm-up
    for (let k = 1; k <= reps; k++) {
      const result = await measure(target, sizes);
      figures.chunksPerSec.push(result.chunksPerSec);
      figures.roundTripMs.push(result.roundTripMs);
      progress(
        `(cluster) ${kind.padEnd(8)} rep ${k}/${reps}: ${fmtRate(result.chunksPerSec)} chunks/s, round trip ${fmtNum(result.roundTripMs, 2)} ms`,
      );
    }
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
  return figures;
}

export async function runClusterBench(options: {
  quick: boolean;
  reps: number;
  progress: (s: string) => void;
}): Promise<ClusterBenchResult> {
  const sizes = clusterSizes(options.quick);
  const result: ClusterBenchResult = { sizes, reps: options.reps, figures: {}, leaseMs: LEASE_MS };
  const skipped = postgresUnavailable();
  result.figures.memory = await threeNodes(
    async () => {
      const shared = new MemoryServerBackend();
      return [shared, shared, shared];
    },
    "memory",
    sizes,
    options.reps,
    options.progress,
  );
  if (skipped !== undefined) {
    result.skipped = skipped;
    return result;
  }
  let database: TestPostgres | undefined;
  const opened: PostgresServerBackend[] = [];
  try {
    database = await startTestPostgres({ settings: { fsync: "on", synchronous_commit: "on" } });
    const url = database.connectionString;
    result.figures.postgres = await threeNodes(
      async () => {
        for (let i = 0; i < 3; i++)
          opened.push(await PostgresServerBackend.open({ database: { connectionString: url, logger: silentLogger } }));
        return opened;
      },
      "postgres",
      sizes,
      options.reps,
      options.progress,
    );
    await Promise.all(opened.map((backend) => backend.close()));
    opened.length = 0;
    const noHaproxy = haproxyUnavailable();
    if (noHaproxy !== undefined) result.failoverSkipped = noHaproxy;
    else
      result.failoverMs = await measureFailover(database, {
        leaseMs: LEASE_MS,
        times: sizes.failovers,
        progress: options.progress,
      });
  } catch (error) {
    result.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
    options.progress(`(cluster) ERROR ${result.error.split("\n")[0]}`);
  } finally {
    await Promise.all(opened.map((backend) => backend.close()));
    await database?.close();
  }
  return result;
}

/** The cluster rows: medians, and PostgreSQL / memory. */
export function printClusterReport(result: ClusterBenchResult, out: (line: string) => void): void {
  out("");
  out(
    `Streamable HTTP across 3 nodes (initialize on A, POSTs on B, streams on C; stdio agent fixture), memory backend vs ` +
      `PostgreSQL backend (one PostgreSQL 15, fsync on, a pool and a LISTEN per node), same run; median of ${result.reps} reps`,
  );
  const { memory, postgres } = result.figures;
  const m = (values: number[] | undefined) =>
    values === undefined || values.length === 0 ? undefined : median(values);
  const s = result.sizes;
  const rows = [
    [
      `streamed turn, chunks/s (${s.chunks.toLocaleString("en-US")} chunks)`,
      fmtRate(m(memory?.chunksPerSec)),
      fmtRate(m(postgres?.chunksPerSec)),
      fmtRatio(
        m(postgres?.chunksPerSec) !== undefined && m(memory?.chunksPerSec) !== undefined
          ? m(postgres!.chunksPerSec)! / m(memory!.chunksPerSec)!
          : undefined,
      ),
    ],
    [
      `prompt round trip, ms (${s.roundTrips} in a row)`,
      fmtNum(m(memory?.roundTripMs), 2),
      fmtNum(m(postgres?.roundTripMs), 2),
      fmtRatio(
        m(memory?.roundTripMs) !== undefined && m(postgres?.roundTripMs) !== undefined
          ? m(memory!.roundTripMs)! / m(postgres!.roundTripMs)!
          : undefined,
      ),
    ],
  ];
  out(table(["row", "memory", "postgres", "postgres/memory (higher is better)"], rows));
  if (result.skipped !== undefined) out(`  postgres skipped: ${result.skipped}`);
  if (result.error !== undefined) out(`  ERROR: ${result.error.split("\n")[0]}`);
  if (result.failoverMs !== undefined)
    out(
      `failover (3 acp serve --cluster behind HAProxy, lease ${result.leaseMs} ms, reference agent): SIGKILL of the agent's node to the ` +
        `next successful prompt, median of ${result.failoverMs.length}: ${fmtNum(median(result.failoverMs), 0)} ms ` +
        `(each: ${result.failoverMs.map((ms) => fmtNum(ms, 0)).join(", ")})`,
    );
  else if (result.failoverSkipped !== undefined) out(`failover skipped: ${result.failoverSkipped}`);
}
