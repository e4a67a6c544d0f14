/**
 * The library as a newcomer installs it: the `@acpkit/sdk` tarball (scripts/pack.mjs) installed offline, from an
 * empty npm cache, into an empty project, without the optional peers (`ws`, the MCP SDK). The published manifest is
 * the user's (no scripts, workspaces or devDependencies; LICENSE, repository, homepage, bugs; README links that work
 * on the registry's page); the examples and a module importing every entry compile against the installed
 * declarations (strict, skipLibCheck off, no DOM lib, without the peers' types); every entry imports (ESM and
 * CommonJS); the examples run; stdio and Streamable HTTP turns work; WebSocket and MCP fail with an error that says
 * what to install; then `ws` is added (from this repository's node_modules, as a copy, no registry) and the remote
 * examples work over WebSocket.
 * The probes under probes/ run inside the temporary project, so they resolve `@acpkit/sdk` from its node_modules.
 * Needs a current build (npm test builds first). ~30-90 s, mostly npm and tsc; ACPKIT_PACK_TEST=0 skips it.
 * `npm run pack:check` runs it too, and reports its figures.
 */
import assert from "node:assert/strict";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { checkAppPair, checkCassetteTest, checkRemotePair, checkToolkitPair, runFile } from "../support/examples.js";
import { cleanEnv, compileExamples, newProject, npm, pack, reportFigures, ROOT, show, type Packed } from "./support.js";

const WS_MESSAGE = "acpkit: WebSocket support needs the 'ws' package: npm install ws@8";
const MCP_MESSAGE =
  "acpkit: MCP server support needs the '@modelcontextprotocol/sdk' package: npm install @modelcontextprotocol/sdk@1";

const SKIP =
  process.env.ACPKIT_PACK_TEST === "0" ? "ACPKIT_PACK_TEST=0: the packed library is not installed and tried" : false;

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  exports: Record<string, unknown>;
};
/** Every code entry (the schema files and package.json aside). */
const ENTRIES = Object.keys(manifest.exports).filter((subpath) => !subpath.endsWith(".json"));

let dir: string;
let project: string;
let cache: string;
let packed: Packed;
let env: NodeJS.ProcessEnv;

before(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), "acpkit-packed-"));
  cache = join(dir, "npm-cache");
  env = cleanEnv({ ACPKIT_DATA_DIR: join(dir, "data"), NO_COLOR: "1" });
  packed = await pack(join(dir, "tarballs"), true);
  project = newProject(join(dir, "project"), "packed-library-probe");
  // Offline, from an empty cache: the tarball must need nothing from a registry.
  await npm(["install", "--offline", packed.library], project, cache);
  await reportFigures("@acpkit/sdk", packed, packed.library, project, cache);
  await compileExamples(project, ENTRIES);
});

after(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const installed = () => join(project, "node_modules/@acpkit/sdk");

test("the installed library has no runtime dependency: node_modules holds @acpkit/sdk alone", { skip: SKIP }, () => {
  const published = JSON.parse(readFileSync(join(installed(), "package.json"), "utf8")) as Record<
    string,
    Record<string, unknown> | undefined
  >;
  assert.equal(published.dependencies, undefined);
  assert.deepEqual(Object.keys(published.peerDependencies ?? {}).sort(), ["@modelcontextprotocol/sdk", "pg", "ws"]);
  assert.deepEqual(published.peerDependenciesMeta, {
    "@modelcontextprotocol/sdk": { optional: true },
    pg: { optional: true },
    ws: { optional: true },
  });
  // @types/node and undici-types are links this test added to compile the examples, as a Node project has them.
  assert.deepEqual(
    readdirSync(join(project, "node_modules")).filter(
      (name) => !name.startsWith(".") && name !== "@types" && name !== "undici-types",
    ),
    ["@acpkit"],
  );
  assert.deepEqual(readdirSync(join(project, "node_modules", "@acpkit")), ["sdk"]);
});

test(
  "the published manifest is a user's: no scripts, workspaces or devDependencies; LICENSE, repository, homepage, bugs",
  { skip: SKIP },
  () => {
    const published = JSON.parse(readFileSync(join(installed(), "package.json"), "utf8")) as Record<string, unknown>;
    for (const field of ["scripts", "workspaces", "devDependencies"])
      assert.equal(published[field], undefined, `the published manifest carries ${field}`);
    assert.match(String((published.repository as { url?: string } | undefined)?.url), /^git\+https:\/\/.+\.git$/);
    assert.match(String(published.homepage), /^https:\/\//);
    assert.match(String((published.bugs as { url?: string } | undefined)?.url), /^https:\/\//);
    assert.equal(published.license, "Apache-2.0");
    assert.match(readFileSync(join(installed(), "LICENSE"), "utf8"), /Apache License\s+Version 2\.0/);
  },
);

test("the packed README's links all work on the registry's page: none is relative", { skip: SKIP }, () => {
  const readme = readFileSync(join(installed(), "README.md"), "utf8");
  const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
  assert.ok(links.length > 5, "the README has links");
  assert.deepEqual(
    links.filter((link) => !/^https:\/\//.test(link) && !link.startsWith("#")),
    [],
  );
  const repository = String(
    (JSON.parse(readFileSync(join(installed(), "package.json"), "utf8")) as { homepage: string }).homepage,
  ).replace(/#readme$/, "");
  assert.ok(
    links.includes(`${repository}/blob/v${manifest.version}/docs/packaging.md`),
    "a link to a document points into the repository at the version's tag",
  );
});

test(
  "every entry point imports without the peers: ESM, CommonJS (every code entry has a require condition), schema JSON",
  { skip: SKIP },
  async () => {
    type Entries = {
      esm: Record<string, number>;
      cjs: Record<string, number>;
      json: Record<string, number>;
      needsPeer: Record<string, string>;
      failures: string[];
    };
    const run = await runFile(process.execPath, [join(project, "entries.mjs")], { cwd: project, env });
    assert.equal(run.code, 0, show(run));
    const result = JSON.parse(run.stdout) as Entries;
    assert.deepEqual(result.failures, []);
    const core = [".", "./unstable", "./experimental/nes", "./node", "./agent-toolkit", "./client-toolkit", "./wire"];
    assert.deepEqual(
      Object.keys(result.needsPeer).filter((subpath) => core.includes(subpath)),
      [],
      "the core entries must import without any peer",
    );
    const expected = Object.keys(manifest.exports).filter((subpath) => subpath !== "./package.json");
    assert.deepEqual(
      [...Object.keys(result.esm), ...Object.keys(result.json), ...Object.keys(result.needsPeer)].sort(),
      expected.sort(),
    );
    for (const [subpath, count] of Object.entries(result.esm)) assert.ok(count > 0, `${subpath} exports nothing`);
    for (const [subpath, count] of Object.entries(result.json)) assert.ok(count > 0, `${subpath} has no definitions`);
    assert.deepEqual(
      Object.keys(result.cjs).sort(),
      ENTRIES.filter((subpath) => !(subpath in result.needsPeer)).sort(),
      "require() of every code entry works",
    );
    for (const [subpath, count] of Object.entries(result.cjs))
      assert.equal(count, result.esm[subpath], `require("@acpkit/sdk${subpath.slice(1)}") and import differ`);
  },
);

test(
  "the examples run against the installed library: toolkit agent and client, 2.x apps, a cassette test",
  { skip: SKIP },
  async () => {
    const examples = join(project, "examples");
    await checkToolkitPair(examples, env);
    await checkAppPair(examples, env);
    await checkCassetteTest(examples, env);
  },
);

interface Turn {
  profile: string;
  protocolVersion: number;
  agent: string;
  stopReason: string;
  text: string;
}

async function turn(transport: string): Promise<Turn> {
  const run = await runFile(process.execPath, [join(project, "turn.mjs"), transport], { cwd: project, env });
  assert.equal(run.code, 0, show(run));
  const result = JSON.parse(run.stdout) as Turn;
  assert.equal(result.profile, transport);
  assert.equal(result.protocolVersion, 1);
  assert.equal(result.agent, "example-toolkit-agent");
  assert.equal(result.stopReason, "end_turn");
  assert.match(result.text, /Your prompt has 1 word\./);
  return result;
}

test(
  "a stdio turn, and without ws a Streamable HTTP turn through connectRemote's default profile",
  { skip: SKIP },
  async () => {
    await turn("stdio");
    await turn("http");
  },
);

test(
  "without the peers, WebSocket and MCP fail with an error naming the package to install",
  { skip: SKIP },
  async () => {
    const run = await runFile(process.execPath, [join(project, "missing-peers.mjs")], { cwd: project, env });
    assert.equal(run.code, 0, show(run));
    const result = JSON.parse(run.stdout) as Record<string, Record<string, unknown>>;
    for (const feature of ["connectRemote", "nodeWebSocket", "listenAcp"]) {
      assert.deepEqual(
        result[feature],
        {
          name: "OptionalDependencyMissingError",
          kind: "dependency_missing",
          message: WS_MESSAGE,
          missing: true,
          packageName: "ws",
        },
        feature,
      );
    }
    assert.equal(result.mcp!.state, "failed");
    assert.equal(result.mcp!.error, MCP_MESSAGE);
    const server = await runFile(process.execPath, [join(project, "examples/remote-server.js")], { cwd: project, env });
    assert.equal(server.code, 1, show(server));
    assert.ok(server.stderr.includes(WS_MESSAGE), show(server));
  },
);

test(
  "with ws added (from this repository's node_modules, no registry), the remote examples work over WebSocket",
  { skip: SKIP },
  async () => {
    // --install-links: packed and installed as a copy, as from a registry, not linked to this repository.
    await npm(["install", "--offline", "--install-links", join(ROOT, "node_modules/ws")], project, cache);
    assert.ok(!lstatSync(join(project, "node_modules/ws")).isSymbolicLink());
    await checkRemotePair(join(project, "examples"), env, "websocket");
    const result = JSON.parse(
      (await runFile(process.execPath, [join(project, "missing-peers.mjs")], { cwd: project, env })).stdout,
    ) as Record<string, Record<string, unknown>>;
    assert.equal(result.connectRemote!.missing, false);
    assert.equal(result.connectRemote!.name, "TransportFailedError");
    assert.deepEqual(result.nodeWebSocket, { ok: true });
    assert.deepEqual(result.listenAcp, { ok: true });
    assert.equal(result.mcp!.error, MCP_MESSAGE, "the MCP SDK is still missing, and still said so");
  },
);
