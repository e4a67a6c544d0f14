/**
 * `acp exec` against an agent with real agents' quirks (test/e2e/fixtures/quirk-agent.ts), as a real process.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ANY_CONTROL, HOSTILE_TEXT } from "../../../src/client/toolkit/hostile-text.js";
import { waitUntil } from "../../../src/node/process/process-group.js";
import { ACP, alive, QUIRK_AGENT, quirkAgent, runExec, startExec } from "./support.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-exec-quirks-")));
after(() => rmSync(base, { recursive: true, force: true }));

const ENV_VAR_METHODS = JSON.stringify([
  { id: "chatgpt", name: "Login with ChatGPT" },
  { type: "env_var", id: "openai-api-key", name: "Use OPENAI_API_KEY", vars: [{ name: "OPENAI_API_KEY" }] },
]);

// Two tests at a time: the slowest wait on acp exec's own bounds (a 5 s startup timeout, a 6 s turn timeout and its
// 2 s grace), not on the CPU; each test starts its own processes and uses its own files under `base`.
describe("acp exec against an agent with real agents' quirks", { concurrency: 2 }, () => {
  test(
    "--auth naming a method of a type this client does not know " + "(env_var): authenticate is sent, with a note",
    async () => {
      const agent = quirkAgent(`--auth-methods=${ENV_VAR_METHODS}`, "--require-auth");
      const run = await runExec(["--agent", agent, "--cwd", base, "--auth", "openai-api-key", "auth"]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "authenticated with openai-api-key\n");
      assert.match(
        run.stderr,
        /authentication method "openai-api-key" has type "env_var", which this client does not know; sending it as authenticate, as asked/,
      );
    },
  );

  test("without --auth, an unknown-type method is listed as such in the error", async () => {
    const agent = quirkAgent(
      `--auth-methods=${JSON.stringify([
        { type: "env_var", id: "k", name: "Use K" },
        { type: "env_var", id: "j", name: "Use J" },
      ])}`,
      "--require-auth",
    );
    const run = await runExec(["--agent", agent, "--cwd", base, "hi"]);
    assert.equal(run.code, 4, run.stderr);
    assert.match(run.stderr, /k \(type env_var, unknown to this client: usable only when named with --auth\): Use K/);
  });

  test("--trace keeps tracing past a message nested too deep to serialize, and warns", async () => {
    const trace = join(base, "deep.ndjson");
    const run = await runExec(["--agent", quirkAgent(), "--cwd", base, "--trace", trace, "deep"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "deep and shallow.\n");
    assert.match(
      run.stderr,
      /acp: --trace: message \d+ \(from the agent, session\/update\) could not be serialized as is \(Maximum call stack size exceeded\); recorded with markers/,
    );
    const records = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map(
        (line) =>
          JSON.parse(line) as {
            from: string;
            message?: { method?: string; result?: { stopReason?: string } };
            note?: string;
          },
      );
    const deep = records.filter((record) => record.note !== undefined);
    assert.equal(deep.length, 1);
    assert.equal(deep[0]!.message?.method, "session/update");
    const last = records.filter((record) => record.from === "agent").at(-1);
    assert.equal(last?.message?.result?.stopReason, "end_turn", "the messages after it are traced");
  });

  /** The pid the quirk agent wrote, once it did. */
  async function pidFrom(file: string): Promise<number> {
    assert.ok(
      await waitUntil(() => existsSync(file) && readFileSync(file, "utf8") !== "", 10_000),
      "the agent wrote its pid",
    );
    return Number(readFileSync(file, "utf8"));
  }

  test(
    "session/new never answered: the startup bound ends the run (exit 3), naming the request and quoting the " +
      "agent; nothing left",
    async () => {
      const pidFile = join(base, "new-never.pid");
      const run = await runExec([
        "--agent",
        quirkAgent("--new-never", `--pid-file=${pidFile}`),
        "--cwd",
        base,
        "--startup-timeout",
        "5",
        "hi",
      ]);
      assert.equal(run.code, 3, run.stderr);
      assert.match(
        run.stderr,
        /the agent did not set up the session within 5 s of its start \(no answer to session\/new\); it printed:\n {2}\| quirk: session\/new is never answered\n[\s\S]*raise --startup-timeout/,
      );
      assert.ok(!alive(await pidFrom(pidFile)), "the agent was stopped");
    },
  );

  test(
    "a prompt never answered, a cancel ignored: --timeout cancels, " + "waits 2 s, stops the agent; exit 124 saying so",
    async () => {
      const pidFile = join(base, "never.pid");
      const started = Date.now();
      const run = await runExec([
        "--agent",
        quirkAgent(`--pid-file=${pidFile}`),
        "--cwd",
        base,
        "--timeout",
        "6",
        "--format",
        "json",
        "never",
      ]);
      assert.equal(run.code, 124, run.stderr);
      assert.ok(Date.now() - started < 6000 + 2000 + 8000, "ended within its bound, the grace and the stop");
      assert.match(run.stderr, /the run reached --timeout 6 s; cancelling the turn/);
      assert.match(run.stderr, /the agent did not end the turn within 2000 ms of the cancel; stopping it/);
      assert.match(
        run.stderr,
        /timed out: the run reached --timeout 6 s \(no answer to session\/prompt\); the turn was cancelled and the agent, which did not end it within 2000 ms, was stopped\. Raise --timeout/,
      );
      const result = JSON.parse(run.stdout) as { exitCode: number; text: string; warnings: string[] };
      assert.equal(result.exitCode, 124);
      assert.equal(result.text, "working...");
      assert.match(result.warnings[0]!, /did not end the turn within 2000 ms of the cancel/);
      assert.ok(!alive(await pidFrom(pidFile)), "the agent was stopped");
    },
  );

  test(
    "end_turn answered after a cancel (Ctrl-C) is reported as cancelled, with a warning naming the agent's " +
      "mistake",
    async () => {
      const run = startExec(["--agent", quirkAgent(), "--cwd", base, "--format", "ndjson", "end-turn-after-cancel"]);
      await run.waitFor("working...");
      run.child.kill("SIGINT");
      const done = await run.done;
      assert.equal(done.code, 130, done.stderr);
      assert.match(
        done.stderr,
        /warning: the agent answered "end_turn" to a cancelled turn; the protocol says it MUST answer "cancelled"\. Reported as cancelled\./,
      );
      const result = JSON.parse(done.stdout.trimEnd().split("\n").pop()!) as {
        stopReason: string;
        exitCode: number;
        text: string;
        warnings: string[];
      };
      assert.deepEqual([result.stopReason, result.exitCode, result.text], ["cancelled", 130, "working... stopped."]);
      assert.equal(result.warnings.length, 1);
    },
  );

  test("updates sent after the answer are shown with their turn, not lost; a warning names the mistake", async () => {
    const text = await runExec(["--agent", quirkAgent(), "--cwd", base, "late-updates"]);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, "first part. late part one. late part two.\n");
    assert.match(
      text.stderr,
      /warning: the agent sent a session\/update \(agent_message_chunk\) after answering session\/prompt; [^\n]*Kept with the turn that produced it\./,
    );
    const ndjson = await runExec(["--agent", quirkAgent(), "--cwd", base, "--format", "ndjson", "late-updates"]);
    const lines = ndjson.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; late?: boolean; text?: string });
    assert.deepEqual(
      lines.filter((line) => line.type === "update").map((line) => line.late === true),
      [false, true, true],
    );
    assert.equal(lines.at(-1)!.text, "first part. late part one. late part two.");
  });

  test(
    "an agent answering a protocol version this client does not " + "speak is refused (exit 3) with a clear message",
    async () => {
      const run = await runExec(["--agent", quirkAgent("--protocol-version=2"), "--cwd", base, "hi"]);
      assert.equal(run.code, 3, run.stderr);
      assert.match(
        run.stderr,
        /the agent answered with protocol version 2, newer than any this client speaks \(it asked for 1; it speaks 1\)/,
      );
    },
  );

  test(
    "terminal escape injection: agent text of every kind, names and errors reach stdout and stderr without " +
      "control sequences",
    async () => {
      for (const prompt of ["escapes", "fail-escapes"]) {
        const run = await runExec([
          "--agent",
          quirkAgent("--hostile"),
          "--cwd",
          base,
          "--verbose",
          "--permissions",
          "allow-reads",
          prompt,
        ]);
        assert.equal(run.code, prompt === "escapes" ? 0 : 1, run.stderr);
        for (const [name, text] of [
          ["stdout", run.stdout],
          ["stderr", run.stderr],
        ] as const) {
          assert.ok(!ANY_CONTROL.test(text), `${prompt}: a control character reached ${name}: ${JSON.stringify(text)}`);
        }
        if (prompt === "escapes") {
          assert.match(run.stdout, /tool-title-2<\tkept> \(edit\) ✗ failed/);
          assert.match(run.stdout, /message<\tkept>/);
          for (const label of [
            "thinking: thought<\tkept>",
            "plan<\tkept>",
            "asks<\tkept>",
            "option<\tkept>",
            "agent| stderr<\tkept>",
            "agent-title<\tkept>",
          ]) {
            assert.ok(run.stderr.includes(label), `${label} in ${run.stderr}`);
          }
        } else assert.match(run.stderr, /the agent failed the turn: error<\tkept>/);
      }
    },
  );

  test("--format ndjson stays faithful: the agent's control characters are JSON-escaped, not stripped", async () => {
    const run = await runExec([
      "--agent",
      quirkAgent("--hostile"),
      "--cwd",
      base,
      "--format",
      "ndjson",
      "--permissions",
      "allow-reads",
      "escapes",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!ANY_CONTROL.test(run.stdout), "escaped on the wire to the terminal");
    const updates = run.stdout
      .trimEnd()
      .split("\n")
      .map(
        (line) => JSON.parse(line) as { type: string; update?: { sessionUpdate: string; content?: { text?: string } } },
      );
    const message = updates.find((line) => line.update?.sessionUpdate === "agent_message_chunk")!;
    assert.equal(message.update!.content!.text, `message<${HOSTILE_TEXT}\tkept>`, "exactly what the agent sent");
  });

  test("a session/new answer without a sessionId is refused: exit 3 with what was wrong, no prompt sent", async () => {
    const trace = join(base, "no-session-id.ndjson");
    const run = await runExec(["--agent", quirkAgent("--new-no-session-id"), "--cwd", base, "--trace", trace, "hi"]);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /the agent answered session\/new without a sessionId \(it gave none\)/);
    assert.equal(run.stdout, "");
    assert.doesNotMatch(readFileSync(trace, "utf8"), /session\/prompt/, "nothing was prompted");
  });
  test(
    "a message chunk that fails the schema is not dropped silently: acp exec warns, and says what was " + "wrong",
    async () => {
      const run = await runExec(["--agent", quirkAgent(), "--cwd", base, "invalid-chunk"]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "after the bad one.\n");
      assert.match(
        run.stderr,
        /acp exec: warning: the agent sent a session\/update that does not match the ACP schema, so it was not shown: .*text/,
      );
    },
  );

  /** Records one conversation with the quirk agent through `acp record`, driven by hand (no exec in front). */
  async function recordCassette(path: string, prompt: string): Promise<void> {
    const frames = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } },
      { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: base, mcpServers: [] } },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "session/prompt",
        params: { sessionId: "q1000", prompt: [{ type: "text", text: prompt }] },
      },
    ];
    const child = spawn(process.execPath, [ACP, "record", path, "--", process.execPath, QUIRK_AGENT, "--quirk-agent"], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let seen = "";
    let written = 1;
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      seen += text;
      // Each frame once, after the answer to the one before (the agent answers ids 1, 2, 3 in order); a chunk that
      // brings no new answer (a notification read on its own) sends nothing, or the prompt would be recorded twice.
      const answered = (seen.match(/"result"/g) ?? []).length;
      while (written <= answered && written < frames.length)
        child.stdin.write(`${JSON.stringify(frames[written++])}\n`);
      if (answered >= frames.length && !child.stdin.writableEnded) child.stdin.end();
    });
    child.stdin.write(`${JSON.stringify(frames[0])}\n`);
    const [code] = (await once(child, "exit")) as [number | null];
    assert.equal(code, 0);
  }

  test(
    "behind acp exec, acp replay's divergences reach the user without --verbose; the agent's own log does " + "not",
    async () => {
      const cassette = join(base, "echo.cassette");
      await recordCassette(cassette, "hello");
      const replay = `'${process.execPath}' '${ACP}' replay '${cassette}' --as agent`;
      const same = await runExec(["--agent", replay, "--cwd", base, "hello"]);
      assert.equal(same.code, 0, same.stderr);
      assert.equal(same.stdout, "echo: hello\n");
      // This cassette was recorded by hand: exec's initialize differs from it, and the replay says so; the prompt not.
      assert.match(same.stderr, /^acp replay: differs .*initialize/m);
      assert.doesNotMatch(same.stderr, /session\/prompt/, "the same prompt: no divergence there");
      const other = await runExec(["--agent", replay, "--cwd", base, "another prompt"]);
      assert.match(other.stderr, /^acp replay: differs .*session\/prompt/m);
      assert.match(other.stderr, /\$\.params\.prompt\[0\]\.text: expected "hello", got "another prompt"/);
      const tapped = `'${process.execPath}' '${ACP}' tap --report '${join(base, "report.ndjson")}' -- ${quirkAgent()}`;
      const quiet = await runExec(["--agent", tapped, "--cwd", base, "invalid-chunk"]);
      assert.equal(quiet.code, 0, quiet.stderr);
      assert.doesNotMatch(
        quiet.stderr,
        /quirk: sending a chunk without its text/,
        "the agent's own log is for --verbose",
      );
      const verbose = await runExec(["--agent", tapped, "--cwd", base, "--verbose", "invalid-chunk"]);
      assert.match(verbose.stderr, /agent\| quirk: sending a chunk without its text/);
    },
  );
});
