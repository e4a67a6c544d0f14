/**
 * The programs as a newcomer installs them: the `@acpkit/sdk` and `@acpkit/cli` tarballs (scripts/pack.mjs) installed
 * together into an empty project from an empty npm cache (the CLI's other dependencies, `ws` and the MCP SDK, come
 * from the registry). `acp --version` names both packages; the `@acpkit/sdk` the CLI resolves from its own location
 * is the packed one, file for file (never a registry package that happens to carry the name); the CLI's published
 * manifest is a user's; the programs work out of the box, and with the examples compiled in that project: `acp exec`
 * drives the toolkit agent of examples/ and `acp check agent` passes it.
 * Needs the npm registry, so it runs only with ACPKIT_PACK_REGISTRY=1: `npm run pack:check` (and so CI) sets it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { after, before, test } from "node:test";
import { runFile } from "../support/examples.js";
import { cleanEnv, compileExamples, newProject, npm, pack, reportFigures, ROOT, show, type Packed } from "./support.js";

const SKIP =
  process.env.ACPKIT_PACK_REGISTRY === "1"
    ? false
    : "needs the npm registry (ws and the MCP SDK): npm run pack:check runs it, with ACPKIT_PACK_REGISTRY=1";

const library = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  exports: Record<string, unknown>;
};
const cliVersion = (JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")) as { version: string })
  .version;

let dir: string;
let project: string;
let cache: string;
let packed: Packed;
let env: NodeJS.ProcessEnv;
let acp: string;

before(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), "acpkit-packed-cli-"));
  cache = join(dir, "npm-cache");
  env = cleanEnv({ ACPKIT_DATA_DIR: join(dir, "data"), NO_COLOR: "1" });
  packed = await pack(join(dir, "tarballs"), false);
  project = newProject(join(dir, "project"), "packed-cli-probe");
  await npm(["install", packed.library, packed.cli!], project, cache);
  await reportFigures("@acpkit/cli", packed, packed.cli!, project, cache);
  await compileExamples(
    project,
    Object.keys(library.exports).filter((subpath) => !subpath.endsWith(".json")),
  );
  acp = join(project, "node_modules/.bin/acp");
});

after(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Every file under `root`, as paths relative to it. */
function filesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(root, path));
    }
  };
  walk(root);
  return out.sort();
}

test("acp --version names both packages, and where the library was found", { skip: SKIP }, async () => {
  const run = await runFile(acp, ["--version"], { cwd: project, env });
  assert.equal(run.code, 0, show(run));
  assert.equal(
    run.stdout,
    `@acpkit/cli ${cliVersion}\n@acpkit/sdk ${library.version} ${join(project, "node_modules/@acpkit/sdk")}\n`,
  );
});

test(
  "the @acpkit/sdk the CLI resolves from its own location is the packed library, file for file",
  { skip: SKIP },
  async () => {
    const cliManifest = join(project, "node_modules/@acpkit/cli/package.json");
    const resolved = dirname(createRequire(cliManifest).resolve("@acpkit/sdk/package.json"));
    assert.equal(realpathSync(resolved), realpathSync(join(project, "node_modules/@acpkit/sdk")));
    const lock = JSON.parse(readFileSync(join(project, "node_modules/.package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string; version?: string }>;
    };
    assert.match(String(lock.packages["node_modules/@acpkit/sdk"]?.resolved), /^file:.*acpkit-sdk-.*\.tgz$/);
    assert.equal(lock.packages["node_modules/@acpkit/cli/node_modules/@acpkit/sdk"], undefined, "no second copy");
    const extracted = join(dir, "extracted");
    const tar = await runFile("sh", [
      "-c",
      `mkdir -p '${extracted}' && tar -xzf '${packed.library}' -C '${extracted}'`,
    ]);
    assert.equal(tar.code, 0, show(tar));
    const tarball = join(extracted, "package");
    const files = filesUnder(tarball);
    assert.deepEqual(filesUnder(resolved), files, "the installed library holds exactly the tarball's files");
    for (const file of files) {
      const a = join(tarball, file);
      const b = join(resolved, file);
      assert.equal(statSync(b).size, statSync(a).size, file);
      assert.ok(readFileSync(a).equals(readFileSync(b)), `${file} differs from the packed one`);
    }
  },
);

test(
  "the CLI's published manifest: the library's exact version, no scripts or workspaces, LICENSE, links",
  { skip: SKIP },
  () => {
    const cli = join(project, "node_modules/@acpkit/cli");
    const published = JSON.parse(readFileSync(join(cli, "package.json"), "utf8")) as Record<string, unknown>;
    assert.equal((published.dependencies as Record<string, string>)["@acpkit/sdk"], library.version);
    for (const field of ["scripts", "workspaces", "devDependencies"]) assert.equal(published[field], undefined, field);
    assert.equal((published.repository as { directory?: string }).directory, "packages/cli");
    assert.match(String(published.homepage), /^https:\/\//);
    assert.match(String((published.bugs as { url?: string }).url), /^https:\/\//);
    assert.match(readFileSync(join(cli, "LICENSE"), "utf8"), /Apache License\s+Version 2\.0/);
    const links = [...readFileSync(join(cli, "README.md"), "utf8").matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    assert.ok(links.length > 0);
    assert.deepEqual(
      links.filter((link) => !/^https:\/\//.test(link)),
      [],
    );
  },
);

test("the programs work out of the box: acp exec with the reference agent", { skip: SKIP }, async () => {
  const run = await runFile(acp, ["exec", "--format", "json", "hello"], { cwd: project, env });
  assert.equal(run.code, 0, show(run));
  assert.equal((JSON.parse(run.stdout) as { stopReason: string }).stopReason, "end_turn");
});

test("acp exec drives the examples' toolkit agent, and acp check agent passes it", { skip: SKIP }, async () => {
  const agent = `${process.execPath} ${join(project, "examples/toolkit-agent.js")}`;
  const exec = await runFile(acp, ["exec", "--permissions", "allow-all", "--agent", agent, "count these words"], {
    cwd: project,
    env,
  });
  assert.equal(exec.code, 0, show(exec));
  assert.match(exec.stdout, /Your prompt has 3 words\./);
  const check = await runFile(
    acp,
    ["check", "agent", "--format", "json", "--", process.execPath, join(project, "examples/toolkit-agent.js")],
    { cwd: project, env },
  );
  assert.equal(check.code, 0, show(check));
  const results = (JSON.parse(check.stdout) as { results: Array<{ id: string; status: string }> }).results;
  assert.deepEqual(
    results.filter((result) => result.status === "failed").map((result) => result.id),
    [],
  );
});
