/**
 * Launch/stop soak: launches an "agent" that leaves escapees behind (a `setsid` daemon holding its stdout, a
 * double-forked sleeper, a plain child), stops it, and checks after every cycle that no process of ours is left
 * (by the tree tag in /proc, and the cgroup where there is one) and that this process holds no more descriptors than
 * before. A soak, not a test: it prints one line per 100 cycles and a summary, and exits 1 on any leftover.
 *
 *   npm run soak:launch                      # 1,000 cycles (SOAK_CYCLES=N for another count)
 *   ACPKIT_NO_CGROUP=1 npm run soak:launch   # with the environment tag alone
 */
import { readdirSync } from "node:fs";
import { launchAgent } from "../src/node/process/agent-launcher.js";
import { cgroupBase } from "../src/node/process/cgroup.js";
import { findProcesses, OWNER_ID, TREE_ENV } from "../src/node/process/process-tree.js";

const cycles = Number(process.env.SOAK_CYCLES ?? 1000);
const AGENT = "setsid sleep 1000 & (sleep 1000 >/dev/null 2>&1 </dev/null &) ; sleep 1000 & exec cat";

function descriptors(): number {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return -1;
  }
}

async function main(): Promise<number> {
  if (process.platform !== "linux") {
    process.stderr.write("launch-soak checks leftovers through /proc: Linux only\n");
    return 0;
  }
  const cgroup = cgroupBase(OWNER_ID);
  process.stdout.write(
    `launch/stop soak: ${cycles} cycles, containment: ` +
      `${cgroup !== undefined ? "cgroup v2 + environment tag" : "environment tag"} + process group\n`,
  );
  // One warm-up cycle, so that lazily opened descriptors (the watchdog's pipe) are in the baseline.
  await (await launchAgent({ argv: ["sh", "-c", AGENT], stdinGraceMs: 0, stopGraceMs: 1000 })).stop();
  const baseline = descriptors();
  const started = performance.now();
  let leftovers = 0;
  let maxDescriptors = baseline;
  for (let i = 1; i <= cycles; i++) {
    const agent = await launchAgent({ argv: ["sh", "-c", AGENT], stdinGraceMs: 0, stopGraceMs: 1000 });
    await agent.stop();
    const left = findProcesses(undefined, `${TREE_ENV}=${OWNER_ID}-`);
    if (left.length > 0) {
      leftovers += left.length;
      process.stdout.write(`cycle ${i}: left ${left.join(", ")}\n`);
      for (const pid of left) process.kill(pid, "SIGKILL");
    }
    maxDescriptors = Math.max(maxDescriptors, descriptors());
    if (i % 100 === 0) {
      const perCycle = (performance.now() - started) / i;
      process.stdout.write(
        `${i} cycles, ${perCycle.toFixed(1)} ms per cycle, descriptors ${descriptors()} (baseline ` +
          `${baseline}), leftovers ${leftovers}\n`,
      );
    }
  }
  const cgroupsLeft =
    cgroup === undefined
      ? 0
      : readdirSync(cgroup).filter((name) => !name.startsWith("cgroup.") && !/\./.test(name)).length;
  const endDescriptors = descriptors();
  process.stdout.write(
    `done: ${cycles} cycles in ${((performance.now() - started) / 1000).toFixed(1)} s; leftover processes ` +
      `${leftovers}; ` +
      `descriptors ${baseline} -> ${endDescriptors} (max ${maxDescriptors}); tree cgroups left ${cgroupsLeft}\n`,
  );
  return leftovers === 0 && endDescriptors <= baseline && cgroupsLeft === 0 ? 0 : 1;
}

process.exitCode = await main();
