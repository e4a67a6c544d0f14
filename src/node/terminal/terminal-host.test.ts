import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { RequestError } from "../../jsonrpc/request-error.js";
import { isProcessAlive, waitUntil } from "../process/process-group.js";
import { TerminalHost, type TerminalOutputEvent } from "./terminal-host.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-term-")));
const proj = join(base, "proj");
mkdirSync(join(proj, "sub"), { recursive: true });
mkdirSync(join(base, "proj-evil"));
symlinkSync(base, join(proj, "up"));
const live: TerminalOutputEvent[] = [];
const host = new TerminalHost({
  roots: (id) => (id === "s1" || id === "s2" ? [proj] : undefined),
  killGraceMs: 300,
  onOutput: (event) => live.push(event),
});
after(async () => {
  await host.releaseAll();
  rmSync(base, { recursive: true, force: true });
});
const sessionId = "s1";
const node = process.execPath;
const run = (script: string, extra: Record<string, unknown> = {}) =>
  host.createTerminal({ sessionId, command: node, args: ["-e", script], ...extra });
const isCode = (code: number, pattern?: RegExp) => (error: unknown) =>
  error instanceof RequestError && error.code === code && (!pattern || pattern.test(error.message));

test("runs argv without a shell, with env and cwd (default: the session's cwd), and reports the exit", async () => {
  const script =
    "console.log(process.cwd(), process.env.ACP_X, process.argv[1]); console.error('err'); process.exit(4)";
  const { terminalId } = await host.createTerminal({
    sessionId,
    command: node,
    args: ["-e", script, "$(id) `x` ;|"],
    env: [{ name: "ACP_X", value: "hé" }],
  });
  assert.deepEqual(await host.waitForTerminalExit({ sessionId, terminalId }), { exitCode: 4, signal: null });
  const out = host.terminalOutput({ sessionId, terminalId });
  assert.equal(out.truncated, false);
  assert.deepEqual(out.exitStatus, { exitCode: 4, signal: null });
  assert.match(out.output, new RegExp(`^${proj} hé \\$\\(id\\) \`x\` ;\\|\\n`));
  assert.match(out.output, /err\n/);
  assert.ok(
    live.some((event) => event.terminalId === terminalId && event.stream === "stderr" && event.text === "err\n"),
  );
  const sub = await run("console.log(process.cwd())", { cwd: join(proj, "sub") });
  await host.waitForTerminalExit({ sessionId, ...sub });
  assert.equal(host.terminalOutput({ sessionId, ...sub }).output, `${join(proj, "sub")}\n`);
  await host.releaseTerminal({ sessionId, ...sub });
  await host.releaseTerminal({ sessionId, terminalId });
});

test("outputByteLimit truncates from the start at a character boundary (é, 你, 😀 at the cut)", async () => {
  for (const char of ["é", "你", "😀"]) {
    const size = Buffer.byteLength(char);
    for (let shift = 0; shift < size; shift++) {
      const limit = 10 * size + shift + 1; // the cut falls inside a character for most shifts
      const script = `process.stdout.write("start" + ${JSON.stringify(char)}.repeat(50) + "end")`;
      const { terminalId } = await run(script, { outputByteLimit: limit });
      await host.waitForTerminalExit({ sessionId, terminalId });
      const { output, truncated } = host.terminalOutput({ sessionId, terminalId });
      assert.equal(truncated, true);
      assert.ok(!output.includes("\uFFFD"), JSON.stringify(output));
      assert.ok(output.endsWith(`${char}end`));
      assert.ok(
        Buffer.byteLength(output) <= limit && Buffer.byteLength(output) > limit - size,
        `${char}: ${Buffer.byteLength(output)} bytes for limit ${limit}`,
      );
      await host.releaseTerminal({ sessionId, terminalId });
    }
  }
});

test("cwd escapes are refused: .., symlink out, prefix trick, relative; so are unknown commands", async () => {
  const outside = isCode(-32602, /outside the session's roots/);
  await assert.rejects(run("", { cwd: join(proj, "..") }), outside);
  await assert.rejects(run("", { cwd: `${proj}/sub/../..` }), outside);
  await assert.rejects(run("", { cwd: join(proj, "up") }), outside);
  await assert.rejects(run("", { cwd: `${proj}-evil` }), outside);
  await assert.rejects(run("", { cwd: "sub" }), isCode(-32602, /absolute/));
  await assert.rejects(run("", { cwd: join(proj, "missing") }), isCode(-32602, /not an existing directory/));
  await assert.rejects(
    host.createTerminal({ sessionId, command: "acpkit-no-such-command-xyz" }),
    isCode(-32602, /could not start/),
  );
  await assert.rejects(host.createTerminal({ sessionId: "nope", command: node }), isCode(-32002));
  assert.equal(host.terminals().length, 0);
});

const GRANDCHILD = `
const { spawn } = require("node:child_process");
const g = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"], { stdio: ["ignore", "pipe", "ignore"] });
process.on("SIGTERM", () => {});
g.stdout.once("data", () => console.log(JSON.stringify({ child: process.pid, grandchild: g.pid })));
setInterval(() => {}, 1000);`;

async function pidsOf(terminalId: string, session = sessionId): Promise<{ child: number; grandchild: number }> {
  await waitUntil(() => host.terminalOutput({ sessionId: session, terminalId }).output.includes("\n"), 5000);
  return JSON.parse(host.terminalOutput({ sessionId: session, terminalId }).output) as {
    child: number;
    grandchild: number;
  };
}

test("kill reaches the whole group (a grandchild that ignores SIGTERM too); the terminal stays valid", async () => {
  const { terminalId } = await run(GRANDCHILD);
  const pids = await pidsOf(terminalId);
  assert.ok(isProcessAlive(pids.child) && isProcessAlive(pids.grandchild));
  await host.killTerminal({ sessionId, terminalId });
  assert.ok(!isProcessAlive(pids.child) && !isProcessAlive(pids.grandchild));
  assert.deepEqual(await host.waitForTerminalExit({ sessionId, terminalId }), { exitCode: null, signal: "SIGKILL" });
  assert.equal(host.terminalOutput({ sessionId, terminalId }).exitStatus?.signal, "SIGKILL");
  await host.releaseTerminal({ sessionId, terminalId });
  await assert.rejects(async () => host.terminalOutput({ sessionId, terminalId }), isCode(-32002));
});

test("release kills a running command; releaseSession and releaseAll kill every terminal of their scope", async () => {
  const a = await run(GRANDCHILD);
  const b = await host.createTerminal({ sessionId: "s2", command: node, args: ["-e", GRANDCHILD] });
  const c = await run("setInterval(() => {}, 1000)");
  await assert.rejects(async () => host.terminalOutput({ sessionId: "s2", terminalId: a.terminalId }), isCode(-32002));
  const pa = await pidsOf(a.terminalId);
  const pb = await pidsOf(b.terminalId, "s2");
  const waiting = host.waitForTerminalExit({ sessionId, terminalId: a.terminalId });
  await host.releaseTerminal({ sessionId, terminalId: a.terminalId });
  assert.equal((await waiting).signal, "SIGKILL");
  assert.ok(!isProcessAlive(pa.child) && !isProcessAlive(pa.grandchild));
  await host.releaseSession("s2");
  assert.ok(!isProcessAlive(pb.child) && !isProcessAlive(pb.grandchild));
  assert.deepEqual(
    host.terminals().map((t) => t.terminalId),
    [c.terminalId],
  );
  const pc = host.terminals()[0]!.pid;
  let closed!: () => void;
  host.releaseAllWhenClosed({ closed: new Promise<void>((resolve) => (closed = resolve)) });
  closed();
  await waitUntil(() => !isProcessAlive(pc), 3000);
  assert.ok(!isProcessAlive(pc));
  assert.equal(host.terminals().length, 0);
});
