/**
 * Many connections to one server: what someone running a server of many agents measures first. One server child per
 * implementation (its remote server with the bench agent in process, as in the remote rows of (a)); 1, 10 or 100
 * clients of the same implementation connect (each its own connection, agent and session) and prompt at once, the
 * (a) workload split between them (200,000 chunks in all, so 2,000 each at 100). Per row, in the same run: the
 * aggregate rate (every chunk at every client, over the time until the last client has its answer and all its
 * chunks), when the first client was done (a share of that time: near 100% means the connections went on side by
 * side, near 0% one after another), and the server's RSS per connection (RSS after gc with the N connections open
 * and idle, less RSS after gc with a probe connection alone, after the probe's own warm-up turn; Linux only), and the
 * round trips of one more connection meanwhile, from a process of its own (./round-trip-probe.ts): what a light user
 * of the same server waits while the others stream. Each client checks that its chunks came all, in order.
 * Implementations are interleaved rep by rep; the median rep (by rate) is shown.
 */
import { readFileSync } from "node:fs";
import { ChunkOrder } from "./chunk-order.js";
import { spawnAgent, type AgentChild } from "./child-process.js";
import type { BenchClient, ClientHooks, Impl, ImplName, RemoteProfile } from "./impls/types.js";
import { withTimeout } from "./harness.js";
import { RoundTripProbe } from "./round-trip-probe-client.js";
import { fmtNum, fmtRate, latencySummary, medianIndex } from "./stats.js";
import type { WorkloadSizes } from "./workloads.js";

export const CONNECTION_COUNTS = [1, 10, 100] as const;
const PROFILES: readonly RemoteProfile[] = ["websocket", "http"];

export interface ConnectionsRep {
  ms: number;
  /** Chunks per second, all clients together. */
  rate: number;
  /** When the first client had all it was owed, as a share of `ms`. */
  firstDone: number;
  /** Round trips of one more connection (another process) meanwhile: median, 99th percentile and longest, ms; how many. */
  roundTrip?: { median: number; p99: number; max: number; count: number };
}

export interface ConnectionsRow {
  impl: ImplName;
  profile: RemoteProfile;
  connections: number;
  chunksEach: number;
  reps: ConnectionsRep[];
  /** The median rep by rate. */
  median?: ConnectionsRep;
  /** Server RSS per open idle connection, bytes (undefined where /proc is not there). */
  rssPerConnection?: number;
  error?: string;
}

/** A client's hooks: counts its chunks, checks their order, and says when it has `expected`. */
class ChunkCounter implements ClientHooks {
  readonly order = new ChunkOrder();
  expected = Infinity;
  doneAt = 0;
  #done: (() => void) | undefined;

  expect(n: number): Promise<void> {
    this.order.reset();
    this.expected = n;
    this.doneAt = 0;
    return new Promise((resolve) => (this.#done = resolve));
  }

  onUpdate(update: { sessionUpdate: string; content?: { text?: string } }): void {
    this.order.see(update.content?.text);
    if (this.order.received === this.expected) {
      this.doneAt = performance.now();
      this.#done?.();
    }
  }

  readTextFile(): string {
    throw new Error("not used by this workload");
  }
}

interface Server {
  impl: Impl;
  child: AgentChild;
  probe: BenchClient;
  roundTrips?: RoundTripProbe;
  clients: { client: BenchClient; counter: ChunkCounter }[];
  row: ConnectionsRow;
}

function rssOf(pid: number | undefined): number | undefined {
  try {
    const kib = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

/** All clients prompt at once for `n` chunks each; resolves when every one has its answer and its chunks. */
async function turn(server: Server, n: number, timeoutMs: number): Promise<ConnectionsRep> {
  server.roundTrips?.go();
  const started = performance.now();
  await withTimeout(
    Promise.all(
      server.clients.map(async ({ client, counter }) => {
        const all = counter.expect(n);
        await client.prompt({ w: "a", n });
        await all;
      }),
    ),
    timeoutMs,
    `${server.clients.length} connections' turn`,
    server.child.died,
  );
  const ms = performance.now() - started;
  const times = await server.roundTrips?.stop(timeoutMs);
  const misplaced = server.clients.find(({ counter }) => !counter.order.inOrder);
  if (misplaced) throw new Error(misplaced.counter.order.describe());
  const firstDone = Math.min(...server.clients.map(({ counter }) => counter.doneAt)) - started;
  return {
    ms,
    rate: (n * server.clients.length) / (ms / 1000),
    firstDone: firstDone / ms,
    ...(times && times.length > 0
      ? { roundTrip: { ...latencySummary(times), max: Math.max(...times), count: times.length } }
      : {}),
  };
}

/** Starts a server child, connects the probe and `count` clients, warms them up and measures RSS per connection. */
async function open(impl: Impl, profile: RemoteProfile, count: number, n: number, timeoutMs: number): Promise<Server> {
  const row: ConnectionsRow = { impl: impl.name, profile, connections: count, chunksEach: n, reps: [] };
  const child = spawnAgent(impl.agentScript, "none", ["--remote"]);
  const server: Server = { impl, child, probe: undefined!, clients: [], row };
  try {
    const url = await withTimeout(child.listening(), timeoutMs, "server start", child.died);
    const connect = (hooks: ClientHooks) =>
      withTimeout(impl.connectRemote!(url, profile, hooks), timeoutMs, "connect", child.died);
    const warmUp = Math.max(100, Math.round(n / 10));
    server.probe = await connect(new ChunkCounter());
    // The probe's own warm-up turn first: the heap and the JIT grow here, not in what is counted per connection.
    await server.probe.prompt({ w: "a", n: warmUp });
    await server.probe.prompt({ w: "gc" });
    const alone = rssOf(child.process.pid);
    server.clients = await Promise.all(
      Array.from({ length: count }, async () => {
        const counter = new ChunkCounter();
        return { client: await connect(counter), counter };
      }),
    );
    server.roundTrips = new RoundTripProbe(impl.name, profile, url);
    await server.roundTrips.ready(timeoutMs);
    await turn(server, warmUp, timeoutMs);
    await server.probe.prompt({ w: "gc" });
    const all = rssOf(child.process.pid);
    if (alone !== undefined && all !== undefined) row.rssPerConnection = (all - alone) / count;
    return server;
  } catch (error) {
    await close(server);
    throw error;
  }
}

async function close(server: Server): Promise<void> {
  for (const { client } of server.clients) client.close();
  server.probe?.close();
  await server.roundTrips?.close();
  await server.child.finish(5000);
}

/** Runs every row: per profile and connection count, each implementation with a remote server, `reps` reps. */
export async function runConnectionsBench(options: {
  impls: readonly Impl[];
  sizes: WorkloadSizes;
  quick: boolean;
  reps: number;
  timeoutMs: number;
  progress: (line: string) => void;
}): Promise<ConnectionsRow[]> {
  const impls = options.impls.filter((impl) => impl.connectRemote !== undefined && impl.name !== "acpkit-node");
  const counts = options.quick ? CONNECTION_COUNTS.slice(0, 2) : CONNECTION_COUNTS;
  const rows: ConnectionsRow[] = [];
  for (const profile of PROFILES) {
    for (const count of counts) {
      const n = Math.max(1, Math.round(options.sizes.a / count));
      const servers: Server[] = [];
      for (const impl of impls) {
        try {
          servers.push(await open(impl, profile, count, n, options.timeoutMs));
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          rows.push({ impl: impl.name, profile, connections: count, chunksEach: n, reps: [], error: message });
          options.progress(`connections ${profile} x${count} ${impl.name}: ${message.split("\n")[0]}`);
        }
      }
      try {
        for (let k = 1; k <= options.reps; k++) {
          for (const server of servers) {
            if (server.row.error !== undefined) continue;
            try {
              const rep = await turn(server, n, options.timeoutMs);
              server.row.reps.push(rep);
              options.progress(
                `connections ${profile} x${count} ${server.impl.name} rep ${k}/${options.reps}: ` +
                  `${fmtRate(rep.rate)} msg/s, first done at ${fmtNum(rep.firstDone * 100, 0)}%`,
              );
            } catch (error) {
              server.row.error = error instanceof Error ? error.message : String(error);
              options.progress(`connections ${profile} x${count} ${server.impl.name}: ${server.row.error}`);
            }
          }
        }
      } finally {
        for (const server of servers) {
          const reps = server.row.reps;
          if (reps.length > 0) server.row.median = reps[medianIndex(reps.map((rep) => rep.rate))];
          rows.push(server.row);
          await close(server);
        }
      }
    }
  }
  return rows;
}
