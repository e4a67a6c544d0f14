/**
 * One measured repetition of one workload with one implementation over one transport.
 *
 * A repetition: spawn a fresh agent child (pipe) or build the agent in this process (memory); handshake; run a small
 * warm-up turn of the same workload; a `gc` turn (the child collects garbage and records its idle RSS baseline);
 * then the measured turn; then close and collect the child's reports.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ChildReport } from "./agents/child.js";
import { spawnAgent, type AgentChild } from "./child-process.js";
import type { BenchClient, ClientHooks, Impl, ImplName } from "./impls/types.js";
import { ChunkOrder } from "./chunk-order.js";
import { collectGarbage, RssSampler } from "./rss.js";
import { gaps, latencySummary, MiB } from "./stats.js";
import {
  bigText,
  chunkText,
  expectedMixedCounts,
  readResponseWireBytes,
  type Command,
  type WorkloadId,
  type WorkloadSizes,
} from "./workloads.js";

/**
 * `tap`: a pipe through `acp tap` (the agent child started as `acp tap -- node agent.js`). `cat`: the agent's output
 * through `cat`, the plainest forwarder, a reference for any process in the path. `websocket` / `http`: the
 * agent child behind the implementation's remote server on 127.0.0.1, this process connected with its remote client.
 * `pipe+load` / `tap+load`: the same as `pipe` / `tap` while another process keeps one core busy (`cpuLoad()`).
 */
export type Transport = "pipe" | "memory" | "tap" | "cat" | "websocket" | "http" | "pipe+load" | "tap+load";

/** The transports that run beside a CPU load. */
export const LOADED_TRANSPORTS = ["pipe+load", "tap+load"] as const;

/**
 * Starts a process that keeps one core busy (a loop that never yields, at normal priority) and resolves once it runs;
 * `stop()` kills it. What a busy editor or another agent does to the machine the tap runs on.
 */
export async function cpuLoad(): Promise<{ stop(): void }> {
  const hog = spawn(process.execPath, ["-e", "process.stdout.write('x'); for (;;) {}"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  await new Promise<void>((resolve, reject) => {
    hog.once("error", reject);
    hog.stdout.once("data", () => resolve());
  });
  return { stop: () => void hog.kill("SIGKILL") };
}

/** The transports that go over the network (RFD profiles). */
export const REMOTE_TRANSPORTS = ["websocket", "http"] as const;

export interface RepResult {
  workload: WorkloadId;
  impl: ImplName;
  transport: Transport;
  /** Messages in the measured turn (round trips for b, 1 for d). */
  messages: number;
  /**
   * The round it was measured in (1, 2, ...; set by the runner, not by `runRep`): within a step, each lane runs once a
   * round, so the tap and its direct pipe of one round ran back to back under the same load.
   */
  round?: number;
  ms: number;
  /** msg/s, or MiB/s for (d). */
  throughput: number;
  unit: "msg/s" | "MiB/s";
  /** Per-message latency in µs: round trip for (b), inter-arrival gap at the client for (a), (c), (e). */
  latency?: { kind: "round trip" | "inter-arrival gap"; medianUs: number; p99Us: number };
  /** This process (the client, and for memory runs also the agent). */
  clientRss: { baselineBytes: number; peakBytes: number };
  /**
   * CPU time (user + system, ms) this process spent during the measured turn (for memory runs, agent included), and
   * the agent child's during its turn (pipe runs). On a shared machine these move less than wall times do.
   */
  cpu?: { clientMs: number; agentMs?: number };
  /** The agent child, for pipe runs. */
  agentRss?: { baselineBytes: number; sampledPeakBytes: number; endBytes: number; maxRssBytes: number; turnMs: number };
  /** For (d): bytes of the response line the agent received. */
  messageBytes?: number;
  /** `inOrder`: for the chunk streams (a) and (e), every chunk arrived in the order it was sent. */
  checks: {
    countAtResponse?: number;
    finalCount?: number;
    allBeforeResponse?: boolean;
    inOrder?: boolean;
    /** Through the tap: the frames its analyzer checked and wrote to the cassette, the whole connection's. */
    tapFrames?: number;
    ok: boolean;
    note?: string;
  };
}

export interface RepOptions {
  sizes: WorkloadSizes;
  timeoutMs: number;
}

class UpdateCounter implements ClientHooks {
  count = 0;
  textChars = 0;
  kinds: Record<string, number> = {};
  times: Float64Array;
  recordKinds = false;
  /** The order of the chunks of (a) and (e) (not recorded for (c), whose updates are of mixed kinds). */
  readonly order = new ChunkOrder();

  constructor(capacity: number) {
    this.times = new Float64Array(capacity);
  }

  reset(recordKinds: boolean): void {
    this.count = 0;
    this.textChars = 0;
    this.kinds = {};
    this.recordKinds = recordKinds;
    this.order.reset();
  }

  onUpdate(update: { sessionUpdate: string; content?: { text?: string } }): void {
    if (this.count < this.times.length) this.times[this.count] = performance.now();
    this.count++;
    if (this.recordKinds) this.kinds[update.sessionUpdate] = (this.kinds[update.sessionUpdate] ?? 0) + 1;
    else {
      this.textChars += update.content?.text?.length ?? 0;
      this.order.see(update.content?.text);
    }
  }

  readTextFile(path: string): string {
    const bytes = Number(/big-(\d+)\.txt$/.exec(path)?.[1]);
    if (!Number.isFinite(bytes)) throw new Error(`unexpected path ${path}`);
    return bigText(bytes);
  }
}

function measuredCommand(w: WorkloadId, sizes: WorkloadSizes, warm: boolean): Command {
  const scale = (n: number) => (warm ? Math.max(100, Math.round(n / 10)) : n);
  switch (w) {
    case "a":
      return { w: "a", n: scale(sizes.a) };
    case "c":
      return { w: "c", n: scale(sizes.c) };
    case "e":
      return { w: "e", n: scale(sizes.e) };
    case "b":
      return { w: "b" };
    case "d":
      return { w: "d", bytes: warm ? 64 * 1024 : sizes.dBytes };
  }
}

function expectedChunkChars(n: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += chunkText(i).length;
  return total;
}

async function waitForCount(counter: UpdateCounter, n: number, maxMs: number): Promise<number> {
  const deadline = performance.now() + maxMs;
  while (counter.count < n && performance.now() < deadline) await new Promise((r) => setImmediate(r));
  return performance.now();
}

/** `promise`, or a rejection naming `what` after `ms`, or `extra`'s rejection (a child that died) first. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string, extra?: Promise<never>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race(extra ? [promise, timeout, extra] : [promise, timeout]).finally(() => clearTimeout(timer));
}

export async function runRep(impl: Impl, w: WorkloadId, transport: Transport, options: RepOptions): Promise<RepResult> {
  const { sizes, timeoutMs } = options;
  const measured = measuredCommand(w, sizes, false);
  const n = measured.w === "a" || measured.w === "c" || measured.w === "e" ? measured.n : w === "b" ? sizes.b : 1;
  const counter = new UpdateCounter(n);
  if (w === "d") bigText(sizes.dBytes); // build the text before anything is timed
  let child: AgentChild | undefined;
  let client: BenchClient | undefined;
  const sampler = new RssSampler(20);
  // Through the tap, its analyzer writes the cassette: afterwards it must hold every frame (checked, not assumed).
  const viaTap = transport === "tap" || transport === "tap+load";
  const tapTrace = viaTap ? join(mkdtempSync(join(tmpdir(), "acpkit-bench-tap-")), "trace.ndjson") : undefined;
  const load = transport === "pipe+load" || transport === "tap+load" ? await cpuLoad() : undefined;
  try {
    if (transport === "pipe" || transport === "pipe+load" || transport === "cat" || viaTap) {
      child = spawnAgent(impl.agentScript, viaTap ? "tap" : transport === "cat" ? "cat" : "none", [], tapTrace);
      client = await withTimeout(impl.connectPipe(child.process, counter), timeoutMs, "handshake", child.died);
    } else if (transport === "websocket" || transport === "http") {
      if (!impl.connectRemote) throw new Error(`${impl.name} has no remote client`);
      child = spawnAgent(impl.agentScript, "none", ["--remote"]);
      const url = await withTimeout(child.listening(), timeoutMs, "remote server start", child.died);
      client = await withTimeout(impl.connectRemote(url, transport, counter), timeoutMs, "handshake", child.died);
    } else {
      client = await withTimeout(impl.connectMemory(counter), timeoutMs, "handshake");
    }
    const run = <T>(p: Promise<T>, what: string) => withTimeout(p, timeoutMs, what, child?.died);
    const c = client;

    // Warm-up inside this connection, then the idle baseline.
    if (w === "b") {
      for (let i = 0; i < Math.max(200, Math.round(sizes.b / 20)); i++) await run(c.prompt({ w: "b" }), "warm-up");
    } else {
      await run(c.prompt(measuredCommand(w, sizes, true)), "warm-up turn");
    }
    await run(c.prompt({ w: "gc" }), "gc turn");
    counter.reset(w === "c");
    collectGarbage();
    const clientBaseline = sampler.reset();
    sampler.start();
    const cpuStart = process.cpuUsage();

    let ms: number;
    let latency: RepResult["latency"];
    const checks: RepResult["checks"] = { ok: true };
    if (w === "b") {
      const rtts = new Float64Array(n);
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        const s = performance.now();
        await run(c.prompt({ w: "b" }), "round trip");
        rtts[i] = (performance.now() - s) * 1000;
      }
      ms = performance.now() - t0;
      latency = { kind: "round trip", ...usOf(latencySummary(rtts)) };
    } else {
      const t0 = performance.now();
      await run(c.prompt(measured), "measured turn");
      const tResponse = performance.now();
      sampler.sample();
      if (w !== "d") {
        checks.countAtResponse = counter.count;
        checks.allBeforeResponse = counter.count === n;
        const tAll = counter.count < n ? await waitForCount(counter, n, 10_000) : tResponse;
        checks.finalCount = counter.count;
        ms = Math.max(tResponse, tAll) - t0;
        if (counter.count !== n) {
          checks.ok = false;
          checks.note = `received ${counter.count} of ${n} updates`;
        } else if (w === "c") {
          const expected = expectedMixedCounts(n);
          for (const [kind, count] of Object.entries(expected)) {
            if (counter.kinds[kind] !== count) {
              checks.ok = false;
              checks.note = `${kind}: got ${counter.kinds[kind] ?? 0}, expected ${count}`;
            }
          }
        } else if (counter.textChars !== expectedChunkChars(n)) {
          checks.ok = false;
          checks.note = `text chars ${counter.textChars} != ${expectedChunkChars(n)}`;
        }
        if (w !== "c") {
          checks.inOrder = counter.order.inOrder;
          if (!checks.inOrder) {
            checks.ok = false;
            checks.note = [checks.note, counter.order.describe()].filter(Boolean).join("; ");
          }
        }
        if (!checks.allBeforeResponse && checks.ok)
          checks.note = `only ${checks.countAtResponse} of ${n} updates had arrived when the prompt response resolved`;
        const arrivals = gaps(counter.times, Math.min(counter.count, n)).map((ms) => ms * 1000);
        latency = { kind: "inter-arrival gap", ...usOf(latencySummary(arrivals)) };
      } else {
        ms = tResponse - t0;
      }
    }
    const cpuUsed = process.cpuUsage(cpuStart);
    sampler.sample();
    sampler.stop();
    load?.stop(); // measured: the tap's analyzer may now catch up
    const clientRss = { baselineBytes: clientBaseline, peakBytes: sampler.peak };

    client.close();
    client = undefined;
    let agentRss: RepResult["agentRss"];
    let reports: ChildReport[] = [];
    if (child) {
      // The tap exits once its analyzer has caught up (it runs on idle CPU time only, so that can come after the turn).
      await child.finish(tapTrace === undefined ? undefined : 120_000);
      agentRss = agentRssOf(child.reports, w);
      reports = child.reports;
      child = undefined;
    }
    if (tapTrace !== undefined) {
      const frames = countCassetteFrames(tapTrace);
      checks.tapFrames = frames;
      if (frames < n) {
        checks.ok = false;
        checks.note = [
          checks.note,
          `the tap's cassette holds ${frames} frames, fewer than the ${n} chunks of the measured turn`,
        ]
          .filter(Boolean)
          .join("; ");
      }
    }
    const result: RepResult = {
      workload: w,
      impl: impl.name,
      transport,
      messages: n,
      ms,
      throughput: w === "d" ? sizes.dBytes / MiB / (ms / 1000) : n / (ms / 1000),
      unit: w === "d" ? "MiB/s" : "msg/s",
      clientRss,
      checks,
    };
    if (latency) result.latency = latency;
    if (agentRss) result.agentRss = agentRss;
    result.cpu = { clientMs: (cpuUsed.user + cpuUsed.system) / 1000 };
    const agentCpu = agentCpuOf(reports, w);
    if (agentCpu !== undefined) result.cpu.agentMs = agentCpu;
    if (w === "d") result.messageBytes = readResponseWireBytes(sizes.dBytes);
    return result;
  } catch (error) {
    if (child && error instanceof Error) {
      const [head, ...rest] = (await child.diagnose()).split("\n");
      const [own, ...ownRest] = error.message.split("\n");
      error.message = [`${own} [${head}]`, ...ownRest, ...rest].join("\n");
    }
    throw error;
  } finally {
    if (tapTrace !== undefined) rmSync(dirname(tapTrace), { recursive: true, force: true });
    sampler.stop();
    try {
      client?.close();
    } catch {
      // already closed
    }
    child?.kill();
    load?.stop();
  }
}

function usOf(s: { median: number; p99: number }): { medianUs: number; p99Us: number } {
  return { medianUs: s.median, p99Us: s.p99 };
}

function agentRssOf(reports: ChildReport[], w: WorkloadId): RepResult["agentRss"] {
  const turns = reports.filter((r): r is Extract<ChildReport, { type: "turn" }> => r.type === "turn" && r.w === w);
  const turn = turns[turns.length - 1];
  const exit = reports.find((r): r is Extract<ChildReport, { type: "exit" }> => r.type === "exit");
  if (!turn && !exit) return undefined;
  return {
    baselineBytes: turn?.baselineRss ?? Number.NaN,
    sampledPeakBytes: turn?.peakRss ?? exit?.sampledPeakRss ?? Number.NaN,
    endBytes: turn?.endRss ?? Number.NaN,
    maxRssBytes: exit?.maxRss ?? Number.NaN,
    turnMs: turn?.ms ?? Number.NaN,
  };
}

/** The agent child's CPU time during its last turn of workload `w`, in ms. */
function agentCpuOf(reports: ChildReport[], w: WorkloadId): number | undefined {
  const turns = reports.filter((r): r is Extract<ChildReport, { type: "turn" }> => r.type === "turn" && r.w === w);
  return turns[turns.length - 1]?.cpuMs;
}

/** Frames in a cassette (one JSON line each, with `from`; the header has none). */
function countCassetteFrames(path: string): number {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return 0;
  }
  let frames = 0;
  for (const line of text.split("\n")) if (line.includes('"from":')) frames++;
  return frames;
}
