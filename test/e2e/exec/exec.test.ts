import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { DEMO_AGENT, fixtureAgent, runExec } from "./support.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-exec-")));
after(() => rmSync(base, { recursive: true, force: true }));
const workspace = (name: string) => realpathSync(mkdtempSync(join(base, `${name}-`)));
const demo = `'${process.execPath}' '${DEMO_AGENT}'`;

test(
  "text: the demo agent's answer and compact tool lines on " + "stdout, exit 0, the file written (allow-all)",
  async () => {
    const cwd = workspace("demo");
    writeFileSync(join(cwd, "notes.txt"), "one\ntwo\nthree\n");
    const run = await runExec(["--agent", demo, "--cwd", cwd, "--permissions", "allow-all", "Summarise notes.txt"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      "• Read notes.txt (read) ✓\n• Write summary.md (edit) ✓\nI read 3 lines from notes.txt and wrote " +
        "summary.md with one bullet per line.\n",
    );
    assert.equal(readFileSync(join(cwd, "summary.md"), "utf8"), "# Summary\n\n- one\n- two\n- three\n");
  },
);

test("text: allow-reads rejects the write; the decision is said on stderr; no colour codes with NO_COLOR", async () => {
  const cwd = workspace("reads");
  writeFileSync(join(cwd, "notes.txt"), "a\n");
  const run = await runExec(["--agent", demo, "--cwd", cwd, "--permissions", "allow-reads", "go"]);
  assert.equal(run.code, 0);
  assert.match(run.stdout, /• Write summary\.md \(edit\) ✗ failed\nI read notes\.txt but did not write summary\.md/);
  assert.match(run.stderr, /permission Write summary\.md \(edit\): Reject \[reject_once\] \(allow-reads\)/);
  assert.ok(!(run.stdout + run.stderr).includes("\u001b["));
  assert.ok(!existsSync(join(cwd, "summary.md")));
});

test("ndjson: a session line, every update as it came, a result line", async () => {
  const cwd = workspace("ndjson");
  writeFileSync(join(cwd, "notes.txt"), "x\n");
  const run = await runExec(["--agent", demo, "--cwd", cwd, "--permissions", "allow-all", "--format", "ndjson", "hi"]);
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; [key: string]: any });
  assert.deepEqual(lines[0], {
    type: "session",
    sessionId: "demo-1",
    how: "new",
    agent: { name: "acpkit-demo-agent", title: "acpkit demo agent", version: "0.1.0" },
    protocolVersion: 1,
  });
  const kinds = lines.filter((line) => line.type === "update").map((line) => line.update.sessionUpdate);
  assert.deepEqual(
    [...new Set(kinds)],
    ["plan", "agent_thought_chunk", "tool_call", "tool_call_update", "agent_message_chunk", "usage_update"],
  );
  assert.equal(lines.filter((line) => line.type === "permission").length, 1);
  const result = lines[lines.length - 1]!;
  assert.equal(result.type, "result");
  assert.equal(result.stopReason, "end_turn");
  assert.equal(result.exitCode, 0);
  assert.equal(result.text, "I read 1 lines from notes.txt and wrote summary.md with one bullet per line.");
  assert.deepEqual(
    result.toolCalls.map((call: { status: string }) => call.status),
    ["completed", "completed"],
  );
});

test("the default agent (the reference agent, acp agent) answers a prompt", async () => {
  const run = await runExec(["--cwd", base, "hello"], { env: { ACPKIT_DATA_DIR: join(base, "data") } });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.stdout.trim().length > 0);
});

test("exit codes by stop reason and failure, against an agent on the official SDK", async () => {
  const agent = fixtureAgent();
  const cases: Array<[prompt: string, code: number, stdout: RegExp, stderr: RegExp]> = [
    ["hello", 0, /^echo: hello\n$/, /^$/],
    ["refuse", 5, /^I will not do that\.\n$/, /stop reason "refusal"/],
    ["max tokens", 6, /^This answer is cut\n$/, /stop reason "max_tokens"/],
    ["fail", 1, /^$/, /the agent failed the turn: .*the model exploded/],
    ["crash", 1, /^$/, /exited with code 9; it printed:\n {2}\| fatal: the model went away/],
  ];
  await Promise.all(
    cases.map(async ([prompt, code, stdout, stderr]) => {
      const run = await runExec(["--agent", agent, "--cwd", base, prompt]);
      assert.equal(run.code, code, `${prompt}: ${run.stderr}`);
      assert.match(run.stdout, stdout, prompt);
      assert.match(run.stderr, stderr, prompt);
      // The library's advice to its callers is not the run's: a one-shot run opens no new connection.
      assert.doesNotMatch(run.stderr, /Open a new connection to continue|\.\./, prompt);
    }),
  );
});

test("json: one object at the end, with the tool call and the text", async () => {
  const run = await runExec(["--agent", fixtureAgent(), "--cwd", base, "--format", "json", "tool"]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.sessionId, "exec-1");
  assert.equal(result.text, "Found 2 files.");
  assert.deepEqual(result.toolCalls, [{ toolCallId: "t1", title: "List files", kind: "search", status: "completed" }]);
});

test("startup failures: no such program, an agent that never answers initialize (short --timeout)", async () => {
  const missing = await runExec(["--agent", "acpkit-no-such-agent --acp", "--cwd", base, "hi"]);
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /could not start the agent "acpkit-no-such-agent"/);
  assert.match(missing.stderr, /installed and on PATH/, "the error says what to do");
  const mute = await runExec([
    "--agent",
    fixtureAgent("--mute"),
    "--cwd",
    base,
    "--startup-timeout",
    "4",
    "--format",
    "json",
    "hi",
  ]);
  assert.equal(mute.code, 3);
  assert.match(
    mute.stderr,
    /did not answer initialize within 4 s; it printed:\n {2}\| warming up the model\n[\s\S]*raise --startup-timeout/,
  );
  assert.equal(JSON.parse(mute.stdout).exitCode, 3);
  // The old meaning of --timeout (a startup bound) still holds: the whole run's bound covers startup too.
  const short = await runExec(["--agent", fixtureAgent("--mute"), "--cwd", base, "--timeout", "0.5", "hi"]);
  assert.equal(short.code, 3);
  assert.match(short.stderr, /did not answer initialize within 500 ms/);
});

test("usage errors name the flag (exit 2)", async () => {
  const cases: Array<[string[], RegExp]> = [
    [["--format", "xml", "hi"], /--format must be one of text, json, ndjson; got "xml"/],
    [["--timeout", "soon", "hi"], /--timeout takes a positive number of seconds/],
    [["--session", "a", "--resume", "hi"], /--session and --resume exclude each other/],
    [["--bogus", "hi"], /unknown option --bogus/],
    [[], /no prompt given/],
    [["--cwd", join(base, "nope"), "hi"], /--cwd .* is not an existing directory/],
    [["--mcp-config", join(base, "missing.json"), "hi"], /--mcp-config: cannot read/],
    [["--agent", "agent 'open", "hi"], /--agent: the command line has an unterminated ' quote/],
  ];
  for (const [args, pattern] of cases) {
    const run = await runExec(args);
    assert.equal(run.code, 2, args.join(" "));
    assert.match(run.stderr, pattern);
  }
  const help = await runExec(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: acp exec \[options\] "<prompt>"/);
});

test("the prompt from stdin (-) and --trace: every message both ways, timestamped, as a cassette", async () => {
  const trace = join(base, "trace.ndjson");
  const run = await runExec(["--agent", fixtureAgent(), "--cwd", base, "--trace", trace, "-"], {
    stdin: "from stdin\n",
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "echo: from stdin\n");
  const [header, ...events] = readFileSync(trace, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.equal(header.acpCassette, 1);
  assert.equal(header.clientInfo.name, "acp-exec");
  const summary = events.map((event) => `${event.from} ${event.message.method ?? `#${event.message.id}`}`);
  assert.deepEqual(summary, [
    "client initialize",
    "agent #0",
    "client session/new",
    "agent #1",
    "client session/prompt",
    "agent session/update",
    "agent #2",
  ]);
  for (const event of events) assert.ok(event.time > 1.6e12 && event.time < Date.now() + 1000);
  assert.deepEqual(events[4].message.params.prompt, [{ type: "text", text: "from stdin\n" }]);
});

test("--mcp-config (editor shape) and --mcp reach session/new as ACP McpServer objects", async () => {
  const config = join(base, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        files: { command: "node", args: ["server.js"], env: { DEBUG: "1" } },
        remote: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer x" } },
        events: { type: "sse", url: "https://example.com/sse" },
      },
    }),
  );
  const run = await runExec([
    "--agent",
    fixtureAgent(),
    "--cwd",
    base,
    "--mcp-config",
    config,
    "--mcp",
    "extra=/bin/echo hi",
    "mcp",
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), [
    {
      name: "files",
      command: JSON.parse(run.stdout)[0].command,
      args: ["server.js"],
      env: [{ name: "DEBUG", value: "1" }],
    },
    {
      type: "http",
      name: "remote",
      url: "https://example.com/mcp",
      headers: [{ name: "Authorization", value: "Bearer x" }],
    },
    { name: "extra", command: "/bin/echo", args: ["hi"], env: [] },
  ]);
  assert.match(JSON.parse(run.stdout)[0].command, /^\/.*node$/);
  assert.match(run.stderr, /MCP server "events" left out: the agent does not accept sse MCP servers/);
});

test("auth_required: one method is used at once; several need --auth; --logout", async () => {
  const one = await runExec(["--agent", fixtureAgent("--require-auth", "--one-method"), "--cwd", base, "auth"]);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(one.stdout, "authenticated with token\n");
  assert.match(
    one.stderr,
    /the agent requires authentication \(.*log in first.*\)\nacp exec: authenticating with "token" \(API token\)/,
  );
  const two = await runExec(["--agent", fixtureAgent("--require-auth"), "--cwd", base, "auth"]);
  assert.equal(two.code, 4);
  assert.match(
    two.stderr,
    /choose a method with --auth ID\. The agent offers:\n {2}token \(agent\): API token — reads EXEC_TOKEN\n {2}other \(agent\): Other login/,
  );
  const chosen = await runExec(["--agent", fixtureAgent("--require-auth"), "--cwd", base, "--auth", "other", "auth"]);
  assert.equal(chosen.code, 0, chosen.stderr);
  assert.equal(chosen.stdout, "authenticated with other\n");
  const wrong = await runExec(["--agent", fixtureAgent("--require-auth"), "--cwd", base, "--auth", "nope", "auth"]);
  assert.equal(wrong.code, 4);
  assert.match(wrong.stderr, /no authentication method "nope"/);
  const logout = await runExec(["--agent", fixtureAgent(), "--cwd", base, "--logout"]);
  assert.equal(logout.code, 0, logout.stderr);
  assert.match(logout.stderr, /logged out/);
});

test("--resume continues the most recent listed session; --session ID that one (session/resume)", async () => {
  const latest = await runExec(["--agent", fixtureAgent(), "--cwd", base, "--format", "ndjson", "--resume", "again"]);
  assert.equal(latest.code, 0, latest.stderr);
  const first = JSON.parse(latest.stdout.split("\n")[0]!);
  assert.deepEqual([first.sessionId, first.how], ["recent", "resume"]);
  const named = await runExec(["--agent", fixtureAgent(), "--cwd", base, "--session", "old", "again"]);
  assert.equal(named.code, 0, named.stderr);
  assert.equal(named.stdout, "echo: again\n");
});
