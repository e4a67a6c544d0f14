/**
 * `acp exec` against an agent with real agents' quirks (test/e2e/fixtures/quirk-agent.ts), as a real process.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { quirkAgent, runExec } from "./support.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-exec-quirks-")));
after(() => rmSync(base, { recursive: true, force: true }));

const ENV_VAR_METHODS = JSON.stringify([
  { id: "chatgpt", name: "Login with ChatGPT" },
  { type: "env_var", id: "openai-api-key", name: "Use OPENAI_API_KEY", vars: [{ name: "OPENAI_API_KEY" }] },
]);

test("--auth naming a method of a type this client does not know (env_var): authenticate is sent, with a note", async () => {
  const agent = quirkAgent(`--auth-methods=${ENV_VAR_METHODS}`, "--require-auth");
  const run = await runExec(["--agent", agent, "--cwd", base, "--auth", "openai-api-key", "auth"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "authenticated with openai-api-key\n");
  assert.match(run.stderr, /authentication method "openai-api-key" has type "env_var", which this client does not know; sending it as authenticate, as asked/);
});

test("without --auth, an unknown-type method is listed as such in the error", async () => {
  const agent = quirkAgent(`--auth-methods=${JSON.stringify([{ type: "env_var", id: "k", name: "Use K" }, { type: "env_var", id: "j", name: "Use J" }])}`, "--require-auth");
  const run = await runExec(["--agent", agent, "--cwd", base, "hi"]);
  assert.equal(run.code, 4, run.stderr);
  assert.match(run.stderr, /k \(type env_var, unknown to this client: usable only when named with --auth\): Use K/);
});

test("--trace keeps tracing past a message nested too deep to serialize, and warns", async () => {
  const trace = join(base, "deep.ndjson");
  const run = await runExec(["--agent", quirkAgent(), "--cwd", base, "--trace", trace, "deep"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "deep and shallow.\n");
  assert.match(run.stderr, /acp: --trace: message \d+ \(from the agent, session\/update\) could not be serialized as is \(Maximum call stack size exceeded\); recorded with markers/);
  const records = readFileSync(trace, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { direction: string; message?: { method?: string; result?: { stopReason?: string } }; traceNote?: string });
  const deep = records.filter((record) => record.traceNote !== undefined);
  assert.equal(deep.length, 1);
  assert.equal(deep[0]!.message?.method, "session/update");
  const last = records.filter((record) => record.direction === "in").at(-1);
  assert.equal(last?.message?.result?.stopReason, "end_turn", "the messages after it are traced");
});
