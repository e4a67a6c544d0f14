import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Logger } from "../../jsonrpc/logger.js";
import { AgentStartupTimeoutError, initializeWithDeadline, launchAgent } from "./agent-launcher.js";
import { waitUntil } from "./process-group.js";

const node = process.execPath;
const init = { protocolVersion: 1, clientCapabilities: {} };

test(
  "argv, cwd, env and extraEnv reach the agent; stderr goes to " + "the tail, the callback and the logger only",
  async () => {
    const logged: string[] = [];
    const logger: Logger = {
      debug: (message, fields) => void (message === "agent stderr" && logged.push(String(fields?.line))),
      info() {},
      warn() {},
      error() {},
    };
    const lines: string[] = [];
    const cwd = realpathSync(tmpdir());
    const launched = await launchAgent({
      argv: [
        node,
        "-e",
        "console.error(process.cwd()); console.error(process.env.A + process.env.B); console.error(process.argv[1])",
        "$(id)",
      ],
      cwd,
      env: { ...process.env, A: "a" },
      extraEnv: { B: "b" },
      onStderrLine: (line) => lines.push(line),
      logger,
    });
    assert.deepEqual(await launched.exited, { code: 0, signal: null });
    await waitUntil(() => lines.length === 3, 2000);
    assert.deepEqual(lines, [cwd, "ab", "$(id)"]);
    assert.deepEqual(logged, lines);
    assert.deepEqual(launched.stderrTail(), lines);
    assert.deepEqual(launched.argv.slice(-1), ["$(id)"]);
    await launched.stop();
  },
);

test("a command line is split without a shell", async () => {
  const launched = await launchAgent({
    command: `"${node}" -e "console.error(process.argv.slice(1).join('|'))" 'a b' "$HOME" ';'`,
  });
  await launched.exited;
  await waitUntil(() => launched.stderrTail().length > 0, 2000);
  assert.deepEqual(launched.stderrTail(), ["a b|$HOME|;"]);
  await assert.rejects(launchAgent({ command: "x", argv: ["y"] }), TypeError);
  await assert.rejects(
    launchAgent({ argv: [node], cwd: "/no/such/dir" }),
    /working directory \/no\/such\/dir does not exist/,
  );
});

test("initializeWithDeadline: the error formats the deadline, quotes stderr, and stops the agent", async () => {
  let stopped = 0;
  const never = { initialize: () => new Promise<never>(() => {}) };
  const launched = {
    stderrTail: () => ["boot", "stuck"],
    stop: async () => {
      stopped++;
      return { code: 0, signal: null };
    },
    startupTimeoutMs: 30_000,
  };
  await assert.rejects(initializeWithDeadline(never, init, launched as never, { timeoutMs: 20 }), (error) => {
    assert.ok(error instanceof AgentStartupTimeoutError);
    assert.equal(error.kind, "timeout");
    assert.match(
      error.message,
      /^the agent did not answer initialize within 20 ms; it printed:\n {2}\| boot\n {2}\| stuck\n/,
    );
    return true;
  });
  assert.equal(stopped, 1);
  assert.match(new AgentStartupTimeoutError(30_000, []).message, /within 30 s; it printed nothing on stderr/);
  const quick = { initialize: async () => ({ protocolVersion: 1 }) };
  assert.deepEqual(await initializeWithDeadline(quick, init, launched as never), { protocolVersion: 1 });
});

test(
  "stdout: the agent writes to the given socket, whose other end ends when the agent exits; there is no stream",
  { skip: process.platform === "win32" && "Unix sockets" },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "acpkit-launch-"));
    const server = createServer({ pauseOnConnect: true });
    await new Promise<void>((resolve) => server.listen(join(dir, "s"), resolve));
    const accepted = once(server, "connection");
    const reader = connect(join(dir, "s"));
    const [agentEnd] = (await accepted) as [Socket];
    server.close();
    rmSync(dir, { recursive: true, force: true });
    const chunks: Buffer[] = [];
    reader.on("data", (chunk: Buffer) => chunks.push(chunk));
    const ended = once(reader, "end");
    const launched = await launchAgent({
      argv: [node, "-e", "process.stdout.write('x'.repeat(300000) + 'end')"],
      stdout: agentEnd,
    });
    assert.equal(launched.child.stdout, null);
    assert.ok(agentEnd.destroyed, "the launcher closed its copy of the agent's end");
    assert.throws(() => launched.stream, /given the agent's stdout \(options\.stdout\)/);
    assert.deepEqual(await launched.exited, { code: 0, signal: null });
    await ended;
    assert.equal(Buffer.concat(chunks).toString(), "x".repeat(300000) + "end");
    await launched.stop();
    reader.destroy();
  },
);
