/**
 * `npm run pack:check`: packs both packages (scripts/pack.mjs), installs each into an empty temporary project as a
 * user would, and reports what the install brings (packages by `npm ls --all --parseable | wc -l`, size by
 * `du -sh node_modules`); checks that the programs work out of the box from @acpkit/cli (`acp --version`, and an
 * `acp exec` turn against the reference agent) and that the library's declarations compile in a TypeScript project
 * without the peers' types; then runs the packed-library test (test/e2e/packaging). Exits
 * non-zero if anything fails. The library installs offline (it has no registry dependency); the CLI's dependencies
 * come from npm's cache when there (`--prefer-offline`), else from the registry.
 *
 *   npm run pack:check              (builds first)
 *   node scripts/pack-check.mjs [--keep]   --keep leaves the temporary projects for a look
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { packAll, packInfo } from "./pack.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const keep = process.argv.includes("--keep");
/** A child npm must not take this script's own npm lifecycle configuration (`npm run` sets npm_* variables). */
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));

function sh(file, args, cwd, extraEnv = {}) {
  return execFileSync(file, args, {
    cwd,
    env: { ...env, ...extraEnv },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
}

/** Installs `tarballs` into a new empty project under `dir`; returns `{ project, packages, size }`. */
function installInto(dir, name, tarballs, offline) {
  const project = join(dir, name);
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: `probe-${name}`, version: "1.0.0", private: true })}\n`,
  );
  sh(
    npm,
    ["install", offline ? "--offline" : "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs],
    project,
  );
  const lines = sh(npm, ["ls", "--all", "--parseable"], project).trim().split("\n").length;
  const size = sh("du", ["-sh", "node_modules"], project).split("\t")[0];
  const bytes = Number(sh("du", ["-sb", "node_modules"], project).split("\t")[0]);
  return { project, lines, packages: lines - 1, size, bytes };
}

const mib = (bytes) =>
  bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

const dir = mkdtempSync(join(tmpdir(), "acpkit-pack-check-"));
let failed = false;
try {
  const { library, cli } = packAll(join(dir, "tarballs"));
  const lib = installInto(dir, "library", [library], true);
  const programs = installInto(dir, "cli", [library, cli], false);
  const rows = [
    ["@acpkit/sdk", library, lib, "npm install @acpkit/sdk"],
    ["@acpkit/cli", cli, programs, "npm install @acpkit/cli"],
  ];
  process.stdout.write(
    "| package | tarball | unpacked | install brings | `npm ls --all --parseable \\| wc -l` | `du -sh " +
      "node_modules` (apparent) |\n| --- | --- | --- | --- | --- | --- |\n",
  );
  for (const [name, tarball, installed] of rows) {
    const info = packInfo.get(tarball);
    process.stdout.write(
      `| ${name} | ${mib(info.size)} | ${mib(info.unpackedSize)} (${info.entryCount} files) | ` +
        `${installed.packages} package${installed.packages === 1 ? "" : "s"} | ${installed.lines} | ` +
        `${installed.size} (${mib(installed.bytes)}) |\n`,
    );
  }

  // Types: a TypeScript project importing every entry compiles against the declarations with skipLibCheck off,
  // without ws or @types/ws (only @types/node, linked from this repository, as a Node project has it).
  const consumer = join(lib.project, "consumer.mts");
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const entries = Object.keys(manifest.exports).filter((subpath) => !subpath.endsWith(".json") && subpath !== "./cli");
  writeFileSync(
    consumer,
    entries
      .map((subpath, i) => `import * as e${i} from "@acpkit/sdk${subpath.slice(1)}";\nexport { e${i} };\n`)
      .join(""),
  );
  mkdirSync(join(lib.project, "node_modules/@types"), { recursive: true });
  symlinkSync(join(root, "node_modules/@types/node"), join(lib.project, "node_modules/@types/node"));
  symlinkSync(join(root, "node_modules/undici-types"), join(lib.project, "node_modules/undici-types"));
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  sh(
    process.execPath,
    [
      tsc,
      "--noEmit",
      "--strict",
      "--skipLibCheck",
      "false",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2022",
      "--types",
      "node",
      consumer,
    ],
    lib.project,
  );
  process.stdout.write(`\ntypes: ${entries.length} entries compile with skipLibCheck off, without ws or @types/ws\n`);

  const acp = join(programs.project, "node_modules/.bin/acp");
  const version = sh(acp, ["--version"], programs.project).trim();
  const turn = sh(acp, ["exec", "--format", "json", "hello"], programs.project, { ACPKIT_DATA_DIR: join(dir, "data") });
  const stopReason = JSON.parse(turn).stopReason;
  process.stdout.write(
    `\n@acpkit/cli out of the box: acp --version -> ${version}; acp exec "hello" -> stopReason ${stopReason}\n`,
  );
  if (stopReason !== "end_turn") throw new Error(`acp exec from @acpkit/cli ended with ${stopReason}`);

  process.stdout.write("\nThe packed-library test (test/e2e/packaging):\n");
  execFileSync(
    process.execPath,
    ["--enable-source-maps", "--test", "--test-timeout=120000", join(root, "dist/test/e2e/packaging")],
    {
      cwd: root,
      env: { ...env, ACPKIT_PACK_TEST: "1" },
      stdio: "inherit",
    },
  );
} catch (error) {
  failed = true;
  process.stderr.write(`pack:check failed: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  if (keep) process.stdout.write(`\nkept: ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
