/**
 * The library as a user installs it: `npm pack` of this repository, installed offline into an empty project without
 * the optional peers (`ws`, the MCP SDK). Every entry point imports (ESM, and CommonJS where offered), a stdio turn
 * and a Streamable HTTP turn work end to end, the WebSocket and MCP features fail with an error that says what to
 * install; then `ws` is added (from this repository's node_modules, installed as a copy, no registry) and a
 * WebSocket turn works.
 * The probes under probes/ run inside the temporary project, so they resolve `@acpkit/sdk` from its node_modules.
 * Needs a current build (npm test builds first). It takes ~18-45 s (mostly npm pack and npm install, longer on a
 * loaded machine); ACPKIT_PACK_TEST=0 skips it. `npm run pack:check` runs it too.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const PROBES = join(ROOT, "test/e2e/packaging/probes");
const WS_MESSAGE = "acpkit: WebSocket support needs the 'ws' package: npm install ws@8";
const MCP_MESSAGE =
  "acpkit: MCP server support needs the '@modelcontextprotocol/sdk' package: npm install @modelcontextprotocol/sdk@1";

const SKIP =
  process.env.ACPKIT_PACK_TEST === "0" ? "ACPKIT_PACK_TEST=0: the packed library is not installed and tried" : false;

let dir: string;
let project: string;

/** This process's environment without npm's lifecycle variables (a child npm must not take `npm test`'s config). */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
  return { ...env, ...extra };
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { cwd, env, encoding: "utf8", timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        if (error !== null && typeof error.code !== "number")
          reject(new Error(`${file} ${args.join(" ")} failed: ${error.message}\n${stderr}`));
        else resolve({ code, stdout, stderr });
      },
    );
  });
}

async function npm(args: readonly string[], cwd: string): Promise<string> {
  const result = await run("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], cwd);
  assert.equal(result.code, 0, `npm ${args.join(" ")} failed in ${cwd}:\n${result.stderr}`);
  return result.stdout;
}

/** Runs a probe (copied into the project) with node; returns its JSON output. */
async function probe<T>(name: string, ...args: string[]): Promise<T> {
  const result = await run(
    process.execPath,
    [join(project, name), ...args],
    project,
    cleanEnv({ ACPKIT_DATA_DIR: join(dir, "data") }),
  );
  assert.equal(result.code, 0, `probe ${name} ${args.join(" ")} exited ${result.code}:\n${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

interface Turn {
  profile: string;
  protocolVersion: number;
  agent: string;
  stopReason: string;
  text: string;
}

function assertTurn(turn: Turn, profile: string): void {
  assert.equal(turn.profile, profile);
  assert.equal(turn.protocolVersion, 1);
  assert.equal(turn.agent, "packed-echo-agent");
  assert.equal(turn.stopReason, "end_turn");
  assert.equal(turn.text, "echo from the packed library: hello");
}

before(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), "acpkit-packed-"));
  project = join(dir, "project");
  const packed = await run(
    process.execPath,
    [join(ROOT, "scripts/pack.mjs"), "--library-only", "--out", join(dir, "tarballs")],
    ROOT,
  );
  assert.equal(packed.code, 0, packed.stderr);
  const { library } = JSON.parse(packed.stdout) as { library: string };
  cpSync(PROBES, project, { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: "packed-probe", version: "1.0.0", private: true })}\n`,
  );
  // Offline: the tarball must need nothing from a registry.
  await npm(["install", "--offline", library], project);
});

after(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test("the installed library has no runtime dependency: node_modules holds @acpkit/sdk alone", { skip: SKIP }, () => {
  const manifest = JSON.parse(readFileSync(join(project, "node_modules/@acpkit/sdk/package.json"), "utf8")) as Record<
    string,
    Record<string, unknown> | undefined
  >;
  assert.equal(manifest.dependencies, undefined);
  assert.deepEqual(Object.keys(manifest.peerDependencies ?? {}).sort(), ["@modelcontextprotocol/sdk", "pg", "ws"]);
  assert.deepEqual(manifest.peerDependenciesMeta, {
    "@modelcontextprotocol/sdk": { optional: true },
    pg: { optional: true },
    ws: { optional: true },
  });
  assert.deepEqual(
    readdirSync(join(project, "node_modules")).filter((name) => !name.startsWith(".")),
    ["@acpkit"],
  );
  assert.deepEqual(readdirSync(join(project, "node_modules", "@acpkit")), ["sdk"]);
});

test(
  "every entry point imports without the peers: ESM, CommonJS where offered, schema JSON",
  { skip: SKIP },
  async () => {
    type Entries = {
      esm: Record<string, number>;
      cjs: Record<string, number>;
      json: Record<string, number>;
      needsPeer: Record<string, string>;
      failures: string[];
    };
    const result = await probe<Entries>("entries.mjs");
    assert.deepEqual(result.failures, []);
    // Entries built wholly on an optional peer (none today; an MCP entry mirroring an official one might be) may
    // fail to import without it, and only for that reason; every other entry must import.
    const core = [".", "./unstable", "./experimental/nes", "./node", "./agent-toolkit", "./client-toolkit", "./wire"];
    assert.deepEqual(
      Object.keys(result.needsPeer).filter((subpath) => core.includes(subpath)),
      [],
      "the core entries must import without any peer",
    );
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    const expected = Object.keys(manifest.exports).filter(
      (subpath) => subpath !== "./package.json" && subpath !== "./cli",
    );
    assert.deepEqual(
      [...Object.keys(result.esm), ...Object.keys(result.json), ...Object.keys(result.needsPeer)].sort(),
      expected.sort(),
    );
    for (const [subpath, count] of Object.entries(result.esm)) assert.ok(count > 0, `${subpath} exports nothing`);
    for (const [subpath, count] of Object.entries(result.json)) assert.ok(count > 0, `${subpath} has no definitions`);
    const withRequire = expected.filter(
      (subpath) =>
        typeof manifest.exports[subpath] === "object" &&
        (manifest.exports[subpath] as { require?: string }).require !== undefined,
    );
    assert.ok(withRequire.includes("."), 'require("@acpkit/sdk") must be offered');
    assert.deepEqual(
      Object.keys(result.cjs).sort(),
      withRequire.filter((subpath) => !(subpath in result.needsPeer)).sort(),
    );
    for (const [subpath, count] of Object.entries(result.cjs))
      assert.equal(count, result.esm[subpath], `require("@acpkit/sdk${subpath.slice(1)}") and import differ`);
  },
);

test(
  "a stdio turn end to end: the packed client against the packed reference agent in a child process",
  { skip: SKIP },
  async () => {
    assertTurn(await probe<Turn>("turn.mjs", "stdio"), "stdio");
  },
);

test(
  "without ws, connectRemote with the default profile speaks Streamable HTTP to an AcpServer on node:http",
  { skip: SKIP },
  async () => {
    assertTurn(await probe<Turn>("turn.mjs", "http"), "http");
  },
);

test(
  "without the peers, WebSocket and MCP fail with an error naming the package to install",
  { skip: SKIP },
  async () => {
    const result = await probe<Record<string, Record<string, unknown>>>("missing-peers.mjs");
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
  },
);

test(
  "with ws added (from this repository's node_modules, no registry), listenAcp and a WebSocket turn work",
  { skip: SKIP },
  async () => {
    // --install-links: packed and installed as a copy, as from a registry, not linked to this repository.
    await npm(["install", "--offline", "--install-links", join(ROOT, "node_modules/ws")], project);
    assert.ok(!lstatSync(join(project, "node_modules/ws")).isSymbolicLink());
    assertTurn(await probe<Turn>("turn.mjs", "websocket"), "websocket");
    const result = await probe<Record<string, Record<string, unknown>>>("missing-peers.mjs");
    assert.equal(result.connectRemote!.missing, false);
    assert.equal(result.connectRemote!.name, "TransportFailedError");
    assert.deepEqual(result.nodeWebSocket, { ok: true });
    assert.deepEqual(result.listenAcp, { ok: true });
    assert.equal(result.mcp!.error, MCP_MESSAGE, "the MCP SDK is still missing, and still said so");
  },
);
