/**
 * `acp tap` end to end: bytes pass through unchanged in both directions (odd framing included), violations are
 * reported live with the frame and the JSON path (or to a report file), the conversation is written as a cassette,
 * the agent's exit code and the signals the tap gets are passed on, and nothing is left behind.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { isProcessAlive, waitUntil } from "../../../src/node/process/process-group.js";
import { readCassette } from "../../../src/wire/index.js";
import { ANY_CONTROL } from "../../../src/client/toolkit/hostile-text.js";
import { ACP, FIXTURES, faultyAgent, tempDir } from "./support.js";

const dir = tempDir("acpkit-tap-");
after(() => rmSync(dir, { recursive: true, force: true }));
const groupAgent = (...flags: string[]) => [process.execPath, join(FIXTURES, "group-agent.js"), "--serve", ...flags];

/** Starts `acp tap ARGS`; collects stdout as bytes. */
function tap(args: readonly string[]) {
  const child = spawn(process.execPath, [ACP, "tap", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  const out: Buffer[] = [];
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, done, stdout: () => Buffer.concat(out), stderr: () => stderr };
}

test(
  "bytes pass through unchanged both ways: split lines, CRLF, blank and non-JSON lines, a split UTF-8 " +
    "character, no final newline",
  { timeout: 60_000 },
  async () => {
    const trace = join(dir, "echo.cassette");
    const run = tap(["--quiet", "--trace", trace, "--", ...groupAgent()]);
    const pieces = [
      '{"jsonrpc":"2.0","id":0,"method":"initial',
      'ize","params":{"protocolVersion":1}}\r\n\n',
      'not json at all\n{"jsonrpc":"2.0","method":"_x","params":{"t":"caf',
      Buffer.from([0xc3]),
      Buffer.concat([Buffer.from([0xa9]), Buffer.from('"}}\n')]),
      '{"jsonrpc":"2.0","method":"_tail"}',
    ];
    for (const piece of pieces) {
      run.child.stdin.write(piece);
      await new Promise((resolve) => setImmediate(resolve));
    }
    run.child.stdin.end();
    const { code } = await run.done;
    assert.equal(code, 0, run.stderr());
    const sent = Buffer.concat(pieces.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));
    assert.ok(
      run.stdout().equals(sent),
      `echoed bytes differ:\n${JSON.stringify(run.stdout().toString())}\n${JSON.stringify(sent.toString())}`,
    );
    const cassette = readCassette(readFileSync(trace, "utf8"));
    const client = cassette.entries
      .filter((e) => e.from === "client")
      .map((e) =>
        e.frame.kind === "message"
          ? (e.frame.value as { method: string }).method
          : `line:${(e.frame as { line: string }).line}`,
      );
    assert.deepEqual(client, ["initialize", "line:not json at all", "_x", "_tail"]);
    assert.equal(
      cassette.entries.filter((e) => e.from === "agent").length,
      4,
      "the echo came back as the agent's frames",
    );
    assert.equal(
      (
        cassette.entries.find(
          (e) => e.frame.kind === "message" && (e.frame.value as { method: string }).method === "_x",
        )!.frame as { value: { params: { t: string } } }
      ).value.params.t,
      "café",
    );
  },
);

test(
  "violations are reported live on stderr with the frame and the JSON path; --report writes them as JSON lines",
  { timeout: 60_000 },
  async () => {
    const report = join(dir, "report.ndjson");
    for (const mode of ["stderr", "report"] as const) {
      const run = tap([...(mode === "report" ? ["--report", report] : []), "--", ...faultyAgent("invalid-frame")]);
      const answers: string[] = [];
      run.child.stdout.setEncoding("utf8").on("data", (text: string) => answers.push(text));
      const call = async (message: { id: number; method: string; params: object }) => {
        run.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
        assert.ok(
          await waitUntil(() => answers.join("").includes(`"id":${message.id},"result"`), 20_000),
          `no answer to ${message.method}`,
        );
      };
      await call({ id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
      await call({ id: 1, method: "session/new", params: { cwd: dir, mcpServers: [] } });
      await call({
        id: 2,
        method: "session/prompt",
        params: { sessionId: "faulty-1", prompt: [{ type: "text", text: "hi" }] },
      });
      run.child.stdin.end();
      assert.equal((await run.done).code, 0);
      if (mode === "stderr") {
        assert.match(
          run.stderr(),
          /acp tap: error \[schema\] The agent sent an invalid session\/update notification: at \$\.params\.update\.content\.text expected string, received number 42\.[^\n]*\n {4}frame #\d+ agent->client: \{"jsonrpc":"2\.0","method":"session\/update",[^\n]*\n {4}at \$\.params\.update\.content\.text\n {4}spec: https:\/\/agentclientprotocol\.com\/protocol\/schema/,
        );
      } else {
        assert.doesNotMatch(run.stderr(), /acp tap:/);
        const [finding] = readFileSync(report, "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line));
        assert.equal(finding.rule, "schema");
        assert.equal(finding.path, "$.params.update.content.text");
        assert.equal(finding.frame.from, "agent");
        assert.match(finding.frame.text, /"text":42/);
      }
    }
  },
);

test(
  "a violation is reported while the conversation goes on: the copy reaches the analyzer once the traffic pauses",
  { timeout: 60_000 },
  async () => {
    const run = tap(["--", ...faultyAgent("invalid-frame")]);
    const answers: string[] = [];
    run.child.stdout.setEncoding("utf8").on("data", (text: string) => answers.push(text));
    const call = async (message: { id: number; method: string; params: object }) => {
      run.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
      assert.ok(
        await waitUntil(() => answers.join("").includes(`"id":${message.id},"result"`), 20_000),
        `no answer to ${message.method}`,
      );
    };
    await call({ id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await call({ id: 1, method: "session/new", params: { cwd: dir, mcpServers: [] } });
    await call({
      id: 2,
      method: "session/prompt",
      params: { sessionId: "faulty-1", prompt: [{ type: "text", text: "hi" }] },
    });
    const answered = performance.now();
    // The client's input stays open: the finding must not wait for the end of the conversation.
    const found = await waitUntil(() => /acp tap: error \[schema\]/.test(run.stderr()), 10_000);
    const late = performance.now() - answered;
    const running = run.child.exitCode === null;
    run.child.stdin.end();
    assert.ok(found, `no finding while the conversation was open; stderr: ${run.stderr()}`);
    assert.ok(running, "the tap still ran when the finding came");
    assert.equal((await run.done).code, 0);
    assert.ok(late < 10_000, `the finding came ${Math.round(late)} ms after the turn`);
  },
);

/** The escapes the faulty agent's "escape-text" fault writes (test/e2e/fixtures/check/faulty-agent.ts). */
const ESCAPES = "\u001b]52;c;cHduZWQ=\u0007\u009d0;owned\u0007\u001b[2J\u009b31m\u001b]0;title\u001b\\";

test(
  "an agent's line that is not JSON, full of terminal escapes: stderr shows it without them, --report keeps " +
    "it escaped, the editor still gets its bytes",
  { timeout: 60_000 },
  async () => {
    const report = join(dir, "escapes.ndjson");
    for (const mode of ["stderr", "report"] as const) {
      const run = tap([...(mode === "report" ? ["--report", report] : []), "--", ...faultyAgent("escape-text")]);
      run.child.stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
      );
      assert.ok(
        await waitUntil(() => run.stdout().toString().includes('"id":0,"result"'), 20_000),
        "no answer to initialize",
      );
      run.child.stdin.end();
      assert.equal((await run.done).code, 0);
      // The tap is transparent: the editor gets the agent's bytes as they were.
      assert.ok(
        run.stdout().toString().startsWith(`${ESCAPES}[faulty-agent] starting up${ESCAPES}\n`),
        "the agent's line passes through unchanged",
      );
      if (mode === "stderr") {
        assert.match(
          run.stderr(),
          /acp tap: error \[jsonrpc\.message\] The agent wrote a line that is not JSON on its stdout[^\n]*\n {4}frame #\d+ agent->client: [^\n]*\[faulty-agent\] starting up/,
        );
        assert.doesNotMatch(run.stderr(), ANY_CONTROL);
      } else {
        const text = readFileSync(report, "utf8");
        assert.doesNotMatch(text, ANY_CONTROL);
        const finding = JSON.parse(text.trim().split("\n")[0]!) as { rule: string; frame: { text: string } };
        assert.equal(finding.rule, "jsonrpc.message");
        assert.equal(
          finding.frame.text,
          `${ESCAPES}[faulty-agent] starting up${ESCAPES}`,
          "the report keeps the line exactly",
        );
      }
    }
  },
);

test("the agent's exit code is the tap's; the agent's stderr passes through", { timeout: 60_000 }, async () => {
  const run = tap(["--", ...groupAgent("--exit-code", "7")]);
  run.child.stdin.end();
  assert.equal((await run.done).code, 7);
  assert.match(run.stderr(), /group-agent: ready/);
});

test(
  "SIGTERM reaches the agent, the tap dies of it too, and nothing of the agent's group is left",
  { timeout: 60_000 },
  async () => {
    const pidFile = join(dir, "pids.json");
    const run = tap(["--", ...groupAgent("--pid-file", pidFile)]);
    await waitUntil(() => existsSync(pidFile) && run.stderr().includes("ready"), 20_000);
    const pids = JSON.parse(readFileSync(pidFile, "utf8")) as { agent: number; grandchild: number };
    run.child.kill("SIGTERM");
    const { signal } = await run.done;
    assert.equal(signal, "SIGTERM");
    assert.ok(
      await waitUntil(() => !isProcessAlive(pids.agent) && !isProcessAlive(pids.grandchild), 10_000),
      "the agent and its grandchild are gone",
    );
  },
);

test("an agent that cannot be started: exit 127 and a message that says what to do", { timeout: 30_000 }, async () => {
  const run = tap(["--", "/nonexistent/agent"]);
  run.child.stdin.end();
  assert.equal((await run.done).code, 127);
  assert.match(
    run.stderr(),
    /acp tap: could not start the agent "\/nonexistent\/agent": .*Check that the command is installed/,
  );
});

test(
  "acp record into a directory that does not exist: exit 2 (a usage error, not 127), saying the directory is missing",
  { timeout: 30_000 },
  async () => {
    const missing = join(dir, "no-such-dir");
    const child = spawn(process.execPath, [ACP, "record", join(missing, "s.cassette"), "--", ...groupAgent()], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    const [code] = (await once(child, "close")) as [number | null];
    assert.equal(code, 2, stderr);
    assert.equal(
      stderr,
      `acp record: cannot write ${join(missing, "s.cassette")}: the directory ${missing} does not exist ` +
        "(create it, or give another path)\n",
    );
  },
);
