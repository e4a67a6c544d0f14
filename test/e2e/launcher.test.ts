import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  AgentSideConnection,
  ClientSideConnection,
  ConnectionClosedError,
  createMemoryPair,
  RequestError,
} from "../../src/entries/index.js";
import {
  AgentExitedError,
  AgentSpawnError,
  AgentStartupTimeoutError,
  FileSystemHost,
  initializeWithDeadline,
  isGroupAlive,
  isProcessAlive,
  launchAgent,
  TerminalHost,
} from "../../src/entries/node.js";
import { trackedGroups, waitUntil } from "../../src/node/process/process-group.js";
import { DEMO_AGENT } from "./support/programs.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.js`, import.meta.url));
const demoAgent = DEMO_AGENT;
const node = process.execPath;
const init = { protocolVersion: 1, clientCapabilities: {} };
const toClient = () => ({
  requestPermission: () => ({ outcome: { outcome: "cancelled" as const } }),
  sessionUpdate: () => {},
});

const posixOnly = { skip: process.platform === "win32" ? "process groups are POSIX" : false };
const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-launcher-")));
after(() => rmSync(base, { recursive: true, force: true }));

test("the startup deadline: an agent that prints on stderr and never answers; the error quotes it", async () => {
  const launched = await launchAgent({ argv: [node, fixture("launcher-agent"), "--mute"], startupTimeoutMs: 4000 });
  const connection = new ClientSideConnection(toClient, launched.stream);
  await assert.rejects(initializeWithDeadline(connection, init, launched), (error) => {
    assert.ok(error instanceof AgentStartupTimeoutError);
    assert.match(
      error.message,
      /^the agent did not answer initialize within 4 s; it printed:\n {2}\| starting up\n {2}\| loading the model from \/nowhere\.\.\. failed, retrying\n/,
    );
    assert.deepEqual(error.stderr, ["starting up", "loading the model from /nowhere... failed, retrying"]);
    return true;
  });
  await launched.exited; // stopped on the deadline
  assert.ok(!isGroupAlive(launched.pid));
  const second = await launchAgent({
    command: `"${node}" '${fixture("launcher-agent")}' --mute`,
    startupTimeoutMs: 1000,
  });
  await assert.rejects(
    initializeWithDeadline(new ClientSideConnection(toClient, second.stream), init, second),
    /within 1 s; it printed/,
  );
  await second.stop();
});

test("a crash mid-request is a connection error naming the exit code and quoting stderr", async () => {
  const launched = await launchAgent({ argv: [node, fixture("launcher-agent"), "--crash-on-new"] });
  const connection = new ClientSideConnection(toClient, launched.stream);
  await initializeWithDeadline(connection, init, launched, { timeoutMs: 5000 });
  await assert.rejects(connection.newSession({ cwd: base, mcpServers: [] }), (error) => {
    assert.ok(error instanceof ConnectionClosedError);
    assert.ok(error.cause instanceof AgentExitedError);
    assert.equal(error.cause.exitCode, 7);
    assert.match(error.message, /exited with code 7; it printed:\n {2}\| fatal: out of tokens/);
    return true;
  });
  assert.deepEqual(await launched.exited, { code: 7, signal: null });
  await launched.stop();
});

test("an agent killed by a signal mid-request: the error names the signal", async () => {
  const launched = await launchAgent({ argv: [node, fixture("launcher-agent"), "--mute"] });
  const pending = new ClientSideConnection(toClient, launched.stream).initialize(init);
  assert.ok(await waitUntil(() => launched.stderrTail().length === 2, 5000));
  process.kill(launched.pid, "SIGKILL");
  await assert.rejects(
    pending,
    (error) => error instanceof ConnectionClosedError && /killed by SIGKILL; it printed/.test(error.message),
  );
  await launched.stop();
});

test("an agent that cannot be started: AgentSpawnError; bad command lines are refused", async () => {
  await assert.rejects(
    launchAgent({ command: "acpkit-no-such-agent --acp" }),
    (error) => error instanceof AgentSpawnError && /acpkit-no-such-agent/.test(error.message),
  );
  await assert.rejects(launchAgent({ command: `agent "unterminated` }), TypeError);
  await assert.rejects(launchAgent({}), TypeError);
});

test(
  "stop() leaves no process of the group: a grandchild that ignores SIGTERM is killed after the grace",
  posixOnly,
  async () => {
    let pids: { agent: number; grandchild: number } | undefined;
    const launched = await launchAgent({
      argv: [node, fixture("launcher-agent"), "--grandchild"],
      stopGraceMs: 300,
      onStderrLine: (line) => void (pids = JSON.parse(line.slice(5)) as typeof pids),
    });
    const connection = new ClientSideConnection(toClient, launched.stream);
    await initializeWithDeadline(connection, init, launched, { timeoutMs: 5000 });
    assert.ok(await waitUntil(() => pids !== undefined, 5000));
    assert.equal(pids!.agent, launched.pid);
    assert.ok(isProcessAlive(pids!.grandchild));
    const stopping = Date.now();
    const status = await launched.stop();
    assert.ok(Date.now() - stopping >= 300, "SIGTERM was ignored: SIGKILL came after the grace");
    assert.deepEqual(status, { code: 0, signal: null }); // the agent left on end of input; its grandchild did not
    assert.ok(!isProcessAlive(pids!.agent) && !isProcessAlive(pids!.grandchild));
    assert.ok(!isGroupAlive(launched.pid));
    assert.ok(!trackedGroups().includes(launched.pid));
    assert.equal(launched.stop(), launched.stop());
  },
);

test(
  "200 start/stop cycles leave nothing behind (demo agent, agent with a stubborn grandchild, sh with a background job)",
  posixOnly,
  async () => {
    const pids: number[] = [];
    // Every tenth cycle starts the demo agent and initializes it, every tenth the fixture agent whose grandchild
    // ignores SIGTERM; the rest start `sh` whose background `sleep` outlives `cat` (the leader) on end of input.
    const kinds = [
      { argv: [node, demoAgent], initialize: true },
      { argv: [node, fixture("launcher-agent"), "--grandchild"], initialize: true },
      ...Array.from({ length: 8 }, () => ({ argv: ["/bin/sh", "-c", "sleep 30 & exec cat"], initialize: false })),
    ];
    const worker = async (first: number, cycles: number) => {
      for (let i = first; i < first + cycles; i++) {
        const kind = kinds[i % kinds.length]!;
        const launched = await launchAgent({ argv: kind.argv, stopGraceMs: 200 });
        pids.push(launched.pid);
        if (kind.initialize) {
          const connection = new ClientSideConnection(toClient, launched.stream);
          await initializeWithDeadline(connection, init, launched, { timeoutMs: 10_000 });
        }
        await launched.stop();
        assert.ok(
          !isGroupAlive(launched.pid),
          `group ${launched.pid} (${kind.argv.join(" ")}) still alive after stop()`,
        );
      }
    };
    await Promise.all([worker(0, 50), worker(50, 50), worker(100, 50), worker(150, 50)]);
    assert.equal(pids.length, 200);
    assert.deepEqual(
      pids.filter((pid) => isProcessAlive(pid) || isGroupAlive(pid)),
      [],
    );
    assert.deepEqual(trackedGroups(), []);
  },
);

test(
  "a client killed (SIGKILL) mid-turn leaves no agent, agent grandchild or terminal process behind",
  posixOnly,
  async () => {
    const client = spawn(node, [fixture("launcher-client"), "--run", base], { stdio: ["ignore", "pipe", "inherit"] });
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: client.stdout! }).once("line", resolve);
      client.once("exit", (code) => reject(new Error(`the client exited early with code ${code}`)));
    });
    try {
      const pids = JSON.parse(line) as {
        agent: number;
        grandchild: number;
        terminal: { child: number; grandchild: number };
      };
      const all = [pids.agent, pids.grandchild, pids.terminal.child, pids.terminal.grandchild];
      assert.ok(
        all.every((pid) => Number.isInteger(pid) && isProcessAlive(pid)),
        line,
      );
      client.kill("SIGKILL");
      assert.ok(
        await waitUntil(() => all.every((pid) => !isProcessAlive(pid)), 5000),
        `left alive: ${all.filter(isProcessAlive).join(", ")}`,
      );
    } finally {
      client.kill("SIGKILL");
    }
  },
);

test("escape attempts over a real connection are refused for fs/read, fs/write and terminal/create", async () => {
  const proj = join(base, "proj");
  mkdirSync(join(proj, "src"), { recursive: true });
  mkdirSync(join(base, "proj-evil"));
  writeFileSync(join(base, "secret.txt"), "secret");
  writeFileSync(join(base, "proj-evil", "x.txt"), "evil");
  writeFileSync(join(proj, "src", "ok.txt"), "fine\n");
  symlinkSync(join(base, "secret.txt"), join(proj, "src", "secret-link"));
  symlinkSync(base, join(proj, "up"));
  const roots = () => [proj];
  const files = new FileSystemHost({ roots });
  const terminals = new TerminalHost({ roots });
  const [clientEnd, agentEnd] = createMemoryPair();
  const clientSide = new ClientSideConnection(
    () => ({
      ...toClient(),
      readTextFile: (p) => files.readTextFile(p),
      writeTextFile: (p) => files.writeTextFile(p),
      createTerminal: (p) => terminals.createTerminal(p),
      terminalOutput: (p) => terminals.terminalOutput(p),
      waitForTerminalExit: (p) => terminals.waitForTerminalExit(p),
      killTerminal: (p) => terminals.killTerminal(p),
      releaseTerminal: (p) => terminals.releaseTerminal(p),
    }),
    clientEnd,
  );
  terminals.releaseAllWhenClosed(clientSide);
  const agent = new AgentSideConnection(
    () => ({
      initialize: () => ({ protocolVersion: 1 }),
      newSession: () => ({ sessionId: "s" }),
      authenticate: () => {},
      prompt: () => ({ stopReason: "end_turn" as const }),
      cancel: () => {},
    }),
    agentEnd,
  );
  const sessionId = "s";
  assert.deepEqual(await agent.readTextFile({ sessionId, path: join(proj, "src", "ok.txt") }), { content: "fine\n" });
  const escapes = [
    join(proj, "..", "secret.txt"),
    `${proj}/src/../../secret.txt`,
    join(proj, "src", "secret-link"),
    join(proj, "up", "secret.txt"),
    join(`${proj}-evil`, "x.txt"),
  ];
  const refused = (error: unknown) =>
    error instanceof RequestError && error.code === -32602 && /outside the session's roots/.test(error.message);
  for (const path of escapes) {
    await assert.rejects(agent.readTextFile({ sessionId, path }), refused, path);
    await assert.rejects(agent.writeTextFile({ sessionId, path, content: "pwned" }), refused, path);
  }
  for (const cwd of [join(proj, ".."), join(proj, "up"), `${proj}-evil`, `${proj}/src/../..`]) {
    await assert.rejects(agent.createTerminal({ sessionId, command: node, args: ["-e", ""], cwd }), refused, cwd);
  }
  const terminal = await agent.createTerminal({
    sessionId,
    command: node,
    args: ["-e", "process.stdout.write('a' + '😀'.repeat(3))"],
    cwd: join(proj, "src"),
    outputByteLimit: 6,
  });
  await terminal.waitForExit();
  assert.deepEqual(await terminal.currentOutput(), {
    output: "😀",
    truncated: true,
    exitStatus: { exitCode: 0, signal: null },
  });
  await terminal.release();
  clientSide.close();
});
