/**
 * Soak: 10 sessions streaming through one real agent process for a configurable time, with the RSS and handle
 * counts of both processes sampled, and their slope after a warm-up reported. Flat = PASS. A soak, not a test: not
 * in `npm test`; exits 1 on FAIL.
 *
 *   npm run soak                                      # 10 sessions, 120 s, a sample every 2 s
 *   SOAK_SECONDS=600 SOAK_SESSIONS=10 npm run soak    # longer
 *
 * PASS when, over the samples after the warm-up (the first 20% of the run, at least 5 s), each process's RSS trend
 * (least-squares slope, projected over the sampled span) grows by less than SOAK_MAX_GROWTH_MIB (default 16 MiB) and
 * its handle and descriptor counts at the end are no higher than their maximum in the first third of the samples.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ClientSideConnection } from "../src/client/client-side-connection.js";
import { silentLogger } from "../src/jsonrpc/logger.js";
import { launchAgent } from "../src/node/process/agent-launcher.js";
import { collectGarbage } from "./rss.js";

const seconds = Number(process.env.SOAK_SECONDS ?? 120);
const sessions = Number(process.env.SOAK_SESSIONS ?? 10);
const sampleMs = Number(process.env.SOAK_SAMPLE_MS ?? 2000);
const maxGrowthMiB = Number(process.env.SOAK_MAX_GROWTH_MIB ?? 16);
const MiB = 1024 * 1024;

interface Sample {
  t: number;
  clientRss: number;
  clientHeap: number;
  agentHeap: number;
  clientHandles: number;
  clientFds: number;
  agentRss: number;
  agentHandles: number;
  agentFds: number;
}

function fds(pid: number | "self"): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return -1;
  }
}

function rssOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : -1;
  } catch {
    return -1;
  }
}

/** Least-squares slope of y over t (units of y per second). */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mt = points.reduce((s, [t]) => s + t, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [t, y] of points) {
    num += (t - mt) * (y - my);
    den += (t - mt) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

async function main(): Promise<number> {
  const here = dirname(fileURLToPath(import.meta.url));
  const agent = await launchAgent({
    argv: [process.execPath, "--expose-gc", join(here, "soak-agent.js")],
    stdinGraceMs: 0,
    stopGraceMs: 2000,
  });
  let updates = 0;
  let bytes = 0;
  const client = new ClientSideConnection(
    () => ({
      sessionUpdate: (n) => {
        updates++;
        if (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text")
          bytes += n.update.content.text.length;
      },
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
    }),
    agent.stream,
    { logger: silentLogger },
  );
  await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
  const ids = await Promise.all(
    Array.from({ length: sessions }, () =>
      client.newSession({ cwd: process.cwd(), mcpServers: [] }).then((r) => r.sessionId),
    ),
  );
  process.stdout.write(
    `soak: ${sessions} sessions streaming through one agent process (pid ${agent.pid}) for ${seconds} s, a ` +
      `sample every ${sampleMs} ms\n`,
  );
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let turns = 0;
  let failures = 0;
  const streams = ids.map(async (sessionId) => {
    while (performance.now() < deadline) {
      try {
        await client.prompt({ sessionId, prompt: [{ type: "text", text: "stream" }] });
        turns++;
      } catch (error) {
        failures++;
        process.stderr.write(`turn failed: ${error instanceof Error ? error.message : String(error)}\n`);
        return;
      }
    }
  });
  const samples: Sample[] = [];
  const sampler = (async () => {
    while (performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, sampleMs));
      collectGarbage();
      const agentSide = (await client.extMethod("_soak/rss", {})) as { rss: number; heap: number; handles: number };
      const sample: Sample = {
        t: (performance.now() - started) / 1000,
        clientRss: process.memoryUsage.rss(),
        clientHeap: process.memoryUsage().heapUsed,
        agentHeap: agentSide.heap,
        clientHandles: process.getActiveResourcesInfo().length,
        clientFds: fds("self"),
        agentRss: rssOf(agent.pid) > 0 ? rssOf(agent.pid) : agentSide.rss,
        agentHandles: agentSide.handles,
        agentFds: fds(agent.pid),
      };
      samples.push(sample);
      process.stdout.write(
        `t=${sample.t.toFixed(0).padStart(4)} s  client rss ${(sample.clientRss / MiB).toFixed(1)} MiB (heap ` +
          `${(sample.clientHeap / MiB).toFixed(1)}), handles ${sample.clientHandles}, fds ${sample.clientFds}  ` +
          (`agent rss ${(sample.agentRss / MiB).toFixed(1)} MiB (heap ${(sample.agentHeap / MiB).toFixed(1)}), ` +
            `handles ${sample.agentHandles}, fds ${sample.agentFds}  turns ${turns}, updates ${updates}\n`),
      );
    }
  })();
  await Promise.all([...streams, sampler]);
  const elapsed = (performance.now() - started) / 1000;
  await agent.stop();

  const warmup = Math.max(5, seconds * 0.2);
  const steady = samples.filter((s) => s.t >= warmup);
  const span = steady.length > 1 ? steady[steady.length - 1]!.t - steady[0]!.t : 0;
  const third = steady.slice(0, Math.max(1, Math.floor(steady.length / 3)));
  const last = steady[steady.length - 1];
  const verdicts: string[] = [];
  let pass = failures === 0 && steady.length >= 3;
  if (steady.length < 3)
    verdicts.push(`only ${steady.length} samples after the ${warmup.toFixed(0)} s warm-up: run longer (SOAK_SECONDS)`);
  for (const who of ["client", "agent"] as const) {
    const perSecond = slope(steady.map((s) => [s.t, s[`${who}Rss`]]));
    const projected = (perSecond * span) / MiB;
    const ok = projected < maxGrowthMiB;
    pass &&= ok;
    const heapPerSecond = slope(steady.map((s) => [s.t, s[`${who}Heap`]]));
    verdicts.push(
      `${who} live heap after GC: slope ${((heapPerSecond * 60) / MiB).toFixed(2)} MiB/min (reported, not judged)`,
    );
    verdicts.push(
      `${who} RSS slope ${((perSecond * 60) / MiB).toFixed(2)} MiB/min (${projected.toFixed(1)} MiB over ` +
        `${span.toFixed(0)} s; limit ${maxGrowthMiB}) ${ok ? "flat" : "GROWING"}`,
    );
    for (const kind of ["Handles", "Fds"] as const) {
      const key = `${who}${kind}` as const;
      const early = Math.max(...third.map((s) => s[key]));
      const ok2 = last === undefined || last[key] <= early;
      pass &&= ok2;
      verdicts.push(
        `${who} ${kind.toLowerCase()}: ${last?.[key]} at the end, at most ${early} in the first third, slope ` +
          `${(slope(steady.map((s) => [s.t, s[key]])) * 60).toFixed(2)}/min ${ok2 ? "flat" : "GROWING"}`,
      );
    }
  }
  process.stdout.write(
    `\n${turns} turns, ${updates} updates, ${(bytes / MiB).toFixed(0)} MiB of text in ${elapsed.toFixed(0)} s ` +
      `(${(updates / elapsed).toFixed(0)} updates/s); ${failures} failed turns\n` +
      verdicts.map((v) => `  ${v}\n`).join("") +
      `${pass ? "PASS" : "FAIL"}\n`,
  );
  return pass ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
