/**
 * Fault 7 of issue 8: CommonJS `require("acpkit")` works (a `require` condition backed by a CommonJS build), as do
 * `acpkit/unstable` and `acpkit/experimental/nes`, and the schema JSON files are exported under the official
 * subpaths. A real consumer project (acpkit installed under node_modules) in a real child process.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { repoRoot } from "../../../src/protocol/testing/repo.js";

const run = promisify(execFile);
let project: string;

before(() => {
  project = mkdtempSync(join(tmpdir(), "acpkit-cjs-"));
  mkdirSync(join(project, "node_modules"));
  symlinkSync(repoRoot, join(project, "node_modules", "acpkit"), "dir");
  writeFileSync(join(project, "package.json"), '{ "name": "consumer", "private": true }\n');
});
after(() => rmSync(project, { recursive: true, force: true }));

async function node(file: string, source: string): Promise<string> {
  writeFileSync(join(project, file), source);
  const { stdout } = await run(process.execPath, [file], { cwd: project, timeout: 60_000 });
  return stdout;
}

test("require('acpkit') gives the 1.x classes, and an agent and a client talk through them", async () => {
  const out = await node(
    "classes.cjs",
    `
const { AgentSideConnection, ClientSideConnection, createMemoryPair, RequestError, PROTOCOL_VERSION, silentLogger } = require("acpkit");
const [a, c] = createMemoryPair();
new AgentSideConnection(() => ({
  initialize: async () => ({ protocolVersion: PROTOCOL_VERSION }),
  newSession: async () => ({ sessionId: "cjs" }),
  authenticate: async () => ({}),
  prompt: async () => { throw RequestError.invalidParams(undefined, "no prompts in this test"); },
  cancel: async () => {},
}), a);
const client = new ClientSideConnection(() => ({ requestPermission: async () => ({ outcome: { outcome: "cancelled" } }), sessionUpdate: async () => {} }), c, { logger: silentLogger });
(async () => {
  await client.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await client.newSession({ cwd: "/", mcpServers: [] });
  const error = await client.prompt({ sessionId, prompt: [] }).catch((e) => e);
  console.log(JSON.stringify({ sessionId, instance: error instanceof RequestError, code: error.code }));
})();
`,
  );
  assert.deepEqual(JSON.parse(out), { sessionId: "cjs", instance: true, code: -32602 });
});

test("require() of acpkit/unstable and acpkit/experimental/nes, and of the schema JSON files", async () => {
  const out = await node(
    "entries.cjs",
    `
const unstable = require("acpkit/unstable");
const nes = require("acpkit/experimental/nes");
const schema = require("acpkit/schema/v1/schema.json");
const unstableSchema = require("acpkit/schema/v1/schema.unstable.json");
const v2 = require("acpkit/schema/v2/schema.json");
console.log(JSON.stringify({
  fork: unstable.methods.agent.session.fork,
  nesSuggest: nes.methods.agent.nes.suggest,
  validate: typeof nes.validate.zSuggestNesRequest.safeParse,
  defs: [Object.keys(schema.$defs).length > 100, "ForkSessionRequest" in unstableSchema.$defs, "$defs" in v2],
}));
`,
  );
  assert.deepEqual(JSON.parse(out), { fork: "session/fork", nesSuggest: "nes/suggest", validate: "function", defs: [true, true, true] });
});

test("ESM import still resolves to the ESM build, and JSON imports work with an import attribute", async () => {
  const out = await node(
    "esm.mjs",
    `
import { AgentSideConnection } from "acpkit";
import schema from "acpkit/schema/v1/schema.json" with { type: "json" };
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
console.log(JSON.stringify({ esm: typeof AgentSideConnection, cjsPath: require.resolve("acpkit").includes("/dist/cjs/"), title: schema.title }));
`,
  );
  assert.deepEqual(JSON.parse(out), { esm: "function", cjsPath: true, title: "Agent Client Protocol" });
});
