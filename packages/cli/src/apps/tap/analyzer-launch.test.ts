import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { analyzerAtFullSpeed, analyzerCommand, findChrt, spawnAnalyzer } from "./analyzer-launch.js";

/** `policy` and `nice` of a process, from /proc/<pid>/sched and /proc/<pid>/stat (Linux). */
function scheduling(pid: number): { policy: number; nice: number } {
  const sched = readFileSync(`/proc/${pid}/sched`, "utf8");
  const policy = Number(/^policy\s*:\s*(\d+)/m.exec(sched)?.[1]);
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { policy, nice: Number(fields[16]) };
}

test("without chrt the analyzer is plain node; with it, chrt --idle 0 runs node", () => {
  assert.deepEqual(analyzerCommand("/x/analyzer.js", null), { command: process.execPath, args: ["/x/analyzer.js"] });
  assert.deepEqual(analyzerCommand("/x/analyzer.js", "/usr/bin/chrt"), {
    command: "/usr/bin/chrt",
    args: ["--idle", "0", process.execPath, "/x/analyzer.js"],
  });
  assert.equal(findChrt("/nonexistent-dir"), undefined);
});

test(
  "the analyzer runs under SCHED_IDLE (policy 5) at nice 19 where chrt exists, and reads its input",
  { skip: process.platform !== "linux" || !findChrt() ? "needs Linux and chrt" : false },
  async () => {
    const script = join(tmpdir(), `analyzer-probe-${process.pid}.mjs`);
    writeFileSync(
      script,
      'let n = 0; process.stdin.on("data", (c) => (n += c.length)); process.stdin.on("end", () => { ' +
        'process.stderr.write(""); process.exit(n === 5 ? 0 : 1); });\n',
    );
    const analyzer = spawnAnalyzer(script);
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // chrt has exec'd node by now
      const { policy, nice } = scheduling(analyzer.pid!);
      assert.equal(policy, 5, "SCHED_IDLE");
      assert.equal(nice, 19);
      analyzer.stdin!.end("hello");
      const code = await new Promise<number | null>((resolve) => analyzer.once("exit", resolve));
      assert.equal(code, 0, "the analyzer got its input");
    } finally {
      analyzer.kill("SIGKILL");
    }
  },
);

test(
  "once the conversation is over the analyzer gets normal priority back, to finish at once (where allowed: root here)",
  {
    skip:
      process.platform !== "linux" || !findChrt() || process.getuid?.() !== 0 ? "needs Linux, chrt and root" : false,
  },
  async () => {
    const script = join(tmpdir(), `analyzer-probe-speed-${process.pid}.mjs`);
    writeFileSync(script, 'process.stdin.on("data", () => {}); process.stdin.on("end", () => process.exit(0));\n');
    const analyzer = spawnAnalyzer(script);
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // chrt has exec'd node by now
      assert.deepEqual(scheduling(analyzer.pid!), { policy: 5, nice: 19 });
      analyzerAtFullSpeed(analyzer);
      assert.deepEqual(scheduling(analyzer.pid!), { policy: 0, nice: 0 }, "SCHED_OTHER at nice 0");
      analyzer.stdin!.end();
      await new Promise((resolve) => analyzer.once("exit", resolve));
      analyzerAtFullSpeed(analyzer); // after its exit: nothing to do, no error
    } finally {
      analyzer.kill("SIGKILL");
    }
  },
);
