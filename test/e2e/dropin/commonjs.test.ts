/**
 * Fault 7 of issue 8: CommonJS `require("@acpkit/sdk")` works (a `require` condition backed by a CommonJS build), and
 * so does `require()` of every other subpath that the official SDK 2.4.0 lets you require (its `default` condition is
 * ESM, which Node >= 20.19 can require): `unstable`, `experimental/nes`, the remote and MCP entries, and the schema
 * JSON files. acpkit's own entries (`node`, the toolkits, `wire`, `testing`) are require()-able too (issue 14: a
 * `require()` must not end in ERR_PACKAGE_PATH_NOT_EXPORTED). A real consumer project (acpkit and the official SDK
 * installed under node_modules) in real child processes.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
  mkdirSync(join(project, "node_modules", "@acpkit"));
  symlinkSync(repoRoot, join(project, "node_modules", "@acpkit", "sdk"), "dir");
  mkdirSync(join(project, "node_modules", "@agentclientprotocol"));
  symlinkSync(
    join(repoRoot, "node_modules", "@agentclientprotocol", "sdk"),
    join(project, "node_modules", "@agentclientprotocol", "sdk"),
    "dir",
  );
  symlinkSync(join(repoRoot, "node_modules", "ws"), join(project, "node_modules", "ws"), "dir");
  writeFileSync(join(project, "package.json"), '{ "name": "consumer", "private": true }\n');
});
after(() => rmSync(project, { recursive: true, force: true }));

async function node(file: string, source: string): Promise<string> {
  writeFileSync(join(project, file), source);
  const { stdout } = await run(process.execPath, [file], { cwd: project, timeout: 60_000 });
  return stdout;
}

test("require('@acpkit/sdk') gives the 1.x classes, and an agent and a client talk through them", async () => {
  const out = await node(
    "classes.cjs",
    `
const { AgentSideConnection, ClientSideConnection, createMemoryPair, RequestError, PROTOCOL_VERSION, silentLogger } = require("@acpkit/sdk");
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

test("require() of @acpkit/sdk/unstable and @acpkit/sdk/experimental/nes, and of the schema JSON files", async () => {
  const out = await node(
    "entries.cjs",
    `
const unstable = require("@acpkit/sdk/unstable");
const nes = require("@acpkit/sdk/experimental/nes");
const schema = require("@acpkit/sdk/schema/v1/schema.json");
const unstableSchema = require("@acpkit/sdk/schema/v1/schema.unstable.json");
const v2 = require("@acpkit/sdk/schema/v2/schema.json");
console.log(JSON.stringify({
  fork: unstable.methods.agent.session.fork,
  nesSuggest: nes.methods.agent.nes.suggest,
  validate: typeof nes.validate.zSuggestNesRequest.safeParse,
  defs: [Object.keys(schema.$defs).length > 100, "ForkSessionRequest" in unstableSchema.$defs, "$defs" in v2],
}));
`,
  );
  assert.deepEqual(JSON.parse(out), {
    fork: "session/fork",
    nesSuggest: "nes/suggest",
    validate: "function",
    defs: [true, true, true],
  });
});

test("ESM import still resolves to the ESM build, and JSON imports work with an import attribute", async () => {
  const out = await node(
    "esm.mjs",
    `
import { AgentSideConnection } from "@acpkit/sdk";
import schema from "@acpkit/sdk/schema/v1/schema.json" with { type: "json" };
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
console.log(JSON.stringify({ esm: typeof AgentSideConnection, cjsPath: require.resolve("@acpkit/sdk").includes("/dist/cjs/"), title: schema.title }));
`,
  );
  assert.deepEqual(JSON.parse(out), { esm: "function", cjsPath: true, title: "Agent Client Protocol" });
});

type Probe = { loads: true; names: string[]; file: string } | { loads: false; code: string; message: string };

test(
  "every code entry of acpkit can be require()d, from the CommonJS build, with the names import() " + "gives",
  async () => {
    const ourManifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    const subpaths = Object.keys(ourManifest.exports).filter((subpath) => !/\.json$/.test(subpath));
    for (const own of ["./node", "./agent-toolkit", "./client-toolkit", "./wire", "./testing"])
      assert.ok(subpaths.includes(own), `${own} is an entry`);
    const out = await node(
      "own-entries.cjs",
      `
(async () => {
  const rows = [];
  for (const subpath of ${JSON.stringify(subpaths)}) {
    const specifier = "@acpkit/sdk" + subpath.slice(1);
    try {
      const cjs = require(specifier);
      const esm = await import(specifier);
      rows.push({ subpath, file: require.resolve(specifier), cjs: Object.keys(cjs).filter((n) => n !== "__esModule").sort(), esm: Object.keys(esm).filter((n) => n !== "default").sort() });
    } catch (error) {
      rows.push({ subpath, error: String(error.code) + ": " + String(error.message).split("\\n")[0] });
    }
  }
  console.log(JSON.stringify(rows));
})();
`,
    );
    for (const row of JSON.parse(out) as Array<{
      subpath: string;
      file?: string;
      cjs?: string[];
      esm?: string[];
      error?: string;
    }>) {
      assert.equal(row.error, undefined, `require("@acpkit/sdk${row.subpath.slice(1)}"): ${row.error}`);
      assert.match(row.file!, /[\\/]dist[\\/]cjs[\\/]/, `${row.subpath} loads the CommonJS build`);
      assert.deepEqual(row.cjs, row.esm, `${row.subpath}: require() and import() give the same names`);
    }
  },
);

test(
  "every subpath the official SDK lets you require(), acpkit lets you require() too, with at least its names, " +
    "from the CommonJS build",
  async () => {
    const officialManifest = JSON.parse(
      readFileSync(join(repoRoot, "node_modules/@agentclientprotocol/sdk/package.json"), "utf8"),
    ) as { exports: Record<string, unknown> };
    const ourManifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    const subpaths = Object.keys(officialManifest.exports).filter((subpath) => subpath !== "./package.json");
    assert.ok(subpaths.length >= 15, `the official manifest lists ${subpaths.length} subpaths`);
    const out = await node(
      "every-subpath.cjs",
      `
const probe = (specifier) => {
  try {
    const module = require(specifier);
    return { loads: true, names: Object.keys(module).filter((name) => name !== "__esModule").sort(), file: require.resolve(specifier) };
  } catch (error) {
    return { loads: false, code: String(error.code), message: String(error.message).split("\\n")[0] };
  }
};
const subpaths = ${JSON.stringify(subpaths)};
console.log(JSON.stringify(subpaths.map((subpath) => [subpath, probe("@agentclientprotocol/sdk" + subpath.slice(1)), probe("@acpkit/sdk" + subpath.slice(1))])));
`,
    );
    const results = JSON.parse(out) as Array<[string, Probe, Probe]>;
    const required: string[] = [];
    for (const [subpath, official, ours] of results) {
      if (!official.loads) continue;
      // An official subpath acpkit does not export at all is export-parity's business (its list of entries not built
      // yet); once exported, it must be require()-able here too.
      if (!(subpath in ourManifest.exports)) continue;
      required.push(subpath);
      assert.ok(
        ours.loads,
        `require("@acpkit/sdk${subpath.slice(1)}") fails (${ours.loads ? "" : `${ours.code}: ${ours.message}`}) ` +
          `where the official one loads`,
      );
      const missing = official.names.filter((name) => !ours.names.includes(name));
      assert.deepEqual(missing, [], `require("@acpkit/sdk${subpath.slice(1)}") lacks names the official one has`);
      if (!subpath.endsWith(".json"))
        assert.match(
          ours.file,
          /[\\/]dist[\\/]cjs[\\/]/,
          `require("@acpkit/sdk${subpath.slice(1)}") should load the CommonJS build, not ${ours.file}`,
        );
    }
    // The official entries this Node can require, at least: the root, unstable, nes, the four remote entries, mcp-http
    // and the schema files (mcp-server needs its optional peer @modelcontextprotocol/server, not installed here).
    for (const subpath of [
      ".",
      "./unstable",
      "./experimental/nes",
      "./experimental/http-client",
      "./experimental/ws-client",
      "./experimental/server",
      "./experimental/node",
      "./experimental/mcp-http",
      "./schema/v1/schema.json",
    ]) {
      assert.ok(required.includes(subpath), `${subpath} was not checked: the official one did not load`);
    }
  },
);

test(
  "require() of the remote entries: a CommonJS AcpServer on node:http, and a CommonJS client app over both " +
    "profiles",
  async () => {
    const out = await node(
      "remote.cjs",
      `
const http = require("node:http");
const { WebSocketServer, WebSocket } = require("ws");
const { agent, client, methods, PROTOCOL_VERSION, RequestError } = require("@acpkit/sdk");
const { AcpServer } = require("@acpkit/sdk/experimental/server");
const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } = require("@acpkit/sdk/experimental/node");
const { createHttpStream } = require("@acpkit/sdk/experimental/http-client");
const { createWebSocketStream } = require("@acpkit/sdk/experimental/ws-client");

const server = new AcpServer({
  createAgent: () =>
    agent({ name: "cjs-agent" })
      .onRequest(methods.agent.initialize, () => ({ protocolVersion: PROTOCOL_VERSION }))
      .onRequest(methods.agent.session.new, () => ({ sessionId: "cjs-session" }))
      .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
        await client.notify(methods.client.session.update, { sessionId: params.sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello from require()" } } });
        return { stopReason: "end_turn" };
      }),
});
const handler = createNodeHttpHandler(server);
const upgrade = createNodeWebSocketUpgradeHandler(server, new WebSocketServer({ noServer: true }));
const listener = http.createServer(handler);
listener.on("upgrade", upgrade);

async function turn(stream) {
  const chunks = [];
  const connection = client({ name: "cjs-client" })
    .onNotification(methods.client.session.update, ({ params }) => { chunks.push(params.update.content.text); })
    .connect(stream);
  await connection.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request(methods.agent.session.new, { cwd: "/", mcpServers: [] });
  const { stopReason } = await connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
  const refused = await connection.agent.request(methods.agent.session.load, { sessionId, cwd: "/", mcpServers: [] }).catch((error) => error);
  connection.close();
  return { sessionId, stopReason, chunks, refused: refused instanceof RequestError ? refused.code : String(refused) };
}

listener.listen(0, "127.0.0.1", async () => {
  const { port } = listener.address();
  const results = {
    http: await turn(createHttpStream("http://127.0.0.1:" + port + "/acp")),
    websocket: await turn(createWebSocketStream("ws://127.0.0.1:" + port + "/acp", { WebSocket })),
  };
  await server.close();
  listener.closeAllConnections();
  listener.close(() => console.log(JSON.stringify(results)));
});
`,
    );
    const expected = {
      sessionId: "cjs-session",
      stopReason: "end_turn",
      chunks: ["hello from require()"],
      refused: -32601,
    };
    assert.deepEqual(JSON.parse(out), { http: expected, websocket: expected });
  },
);
