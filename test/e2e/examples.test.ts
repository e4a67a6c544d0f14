/**
 * The examples (examples/*.ts, compiled by the build to dist/examples under `strict` with Node's types only) run
 * against this repository's build and do what examples/README.md says; the toolkit agent passes `acp check agent`.
 * The same programs run against the packed tarballs in test/e2e/packaging.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ACP_CLI } from "./support/programs.js";
import { checkAppPair, checkCassetteTest, checkRemotePair, checkToolkitPair, runFile } from "./support/examples.js";

const EXAMPLES = fileURLToPath(new URL("../../examples/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "acpkit-examples-"));
const env = { ...process.env, ACPKIT_DATA_DIR: join(dir, "data"), NO_COLOR: "1" };
after(() => rmSync(dir, { recursive: true, force: true }));

test("toolkit-client.js drives toolkit-agent.js: streaming, a tool call, a permission allowed or denied", async () => {
  await checkToolkitPair(EXAMPLES, env);
});

test("app-client.js drives app-agent.js (the 2.x app API)", async () => {
  await checkAppPair(EXAMPLES, env);
});

test("cassette.test.js: the recorded agent replayed to the client, and a client that diverges is told", async () => {
  await checkCassetteTest(EXAMPLES, env);
});

test("remote-server.js and remote-client.js: a turn over WebSocket, a wrong token refused, SIGTERM stops", async () => {
  await checkRemotePair(EXAMPLES, env, "websocket");
});

test("toolkit-agent.js passes acp check agent, session load and resume in a new process included", async () => {
  const run = await runFile(
    process.execPath,
    [ACP_CLI, "check", "agent", "--format", "json", "--", process.execPath, join(EXAMPLES, "toolkit-agent.js")],
    { env },
  );
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const report = JSON.parse(run.stdout) as { results: Array<{ id: string; status: string }> };
  const status = Object.fromEntries(report.results.map((result) => [result.id, result.status]));
  assert.equal(status["session.load"], "passed");
  assert.equal(status["session.resume"], "passed");
  assert.deepEqual(
    report.results.filter((result) => result.status === "failed").map((result) => result.id),
    [],
  );
});
