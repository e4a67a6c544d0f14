/**
 * What the packaging tests share: packing (scripts/pack.mjs), empty projects installed from the tarballs with an
 * empty npm cache of their own, the examples compiled there against the installed declarations, and the figures
 * `npm run pack:check` reports (written as JSON lines to `ACPKIT_PACK_REPORT` when set). Does nothing when run.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runFile, type Run } from "../support/examples.js";

export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
export const PROBES = join(ROOT, "test/e2e/packaging/probes");

/** This process's environment without npm's lifecycle variables (a child npm must not take `npm test`'s config). */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^npm_/i.test(key) && key !== "NODE_TEST_CONTEXT") env[key] = value;
  return { ...env, ...extra };
}

export function show(run: Run): string {
  return `exit ${run.code}${run.signal ? ` (${run.signal})` : ""}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
}

/** An npm command in `cwd` with its own cache directory `cache` (empty when the project was made). */
export async function npm(args: readonly string[], cwd: string, cache: string): Promise<string> {
  const run = await runFile("npm", [...args, "--cache", cache, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    env: cleanEnv(),
    timeoutMs: 600_000,
  });
  assert.equal(run.code, 0, `npm ${args.join(" ")} failed in ${cwd}:\n${show(run)}`);
  return run.stdout;
}

export interface Packed {
  library: string;
  cli?: string;
  /** What npm pack said of each tarball, by path. */
  info: Record<string, { size: number; unpackedSize: number; entryCount: number }>;
}

/** Packs the library (and the CLI unless `libraryOnly`) into `out` with scripts/pack.mjs. */
export async function pack(out: string, libraryOnly: boolean): Promise<Packed> {
  const script = `
    import { packAll, packInfo } from ${JSON.stringify(join(ROOT, "scripts/pack.mjs"))};
    const paths = packAll(${JSON.stringify(out)}, { libraryOnly: ${libraryOnly} });
    process.stdout.write(JSON.stringify({ ...paths, info: Object.fromEntries(packInfo) }));
  `;
  const run = await runFile(process.execPath, ["--input-type=module", "-e", script], {
    cwd: ROOT,
    env: cleanEnv(),
    timeoutMs: 300_000,
  });
  assert.equal(run.code, 0, show(run));
  return JSON.parse(run.stdout) as Packed;
}

/** A new empty project `dir` (an ES module package, as the examples need), with the probes copied in. */
export function newProject(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name, version: "1.0.0", private: true, type: "module" })}\n`,
  );
  for (const probe of readdirSync(PROBES)) copyFileSync(join(PROBES, probe), join(dir, probe));
  return dir;
}

/**
 * Copies examples/*.ts into `project/examples` and compiles them there, with a consumer module importing every
 * entry, against the installed declarations: `--strict`, `skipLibCheck` off, `lib: es2023` (no DOM), Node's types
 * only (linked from this repository, as a Node project has them), neither `ws`'s nor the MCP SDK's. Emits the
 * examples' JavaScript beside them.
 */
export async function compileExamples(project: string, entries: readonly string[]): Promise<void> {
  const examples = join(project, "examples");
  mkdirSync(examples, { recursive: true });
  for (const file of readdirSync(join(ROOT, "examples")))
    if (file.endsWith(".ts")) copyFileSync(join(ROOT, "examples", file), join(examples, file));
  writeFileSync(
    join(examples, "every-entry.ts"),
    entries.map((subpath, i) => `export * as e${i} from "@acpkit/sdk${subpath.slice(1)}";\n`).join(""),
  );
  const types = join(project, "node_modules/@types");
  mkdirSync(types, { recursive: true });
  symlinkSync(join(ROOT, "node_modules/@types/node"), join(types, "node"));
  symlinkSync(join(ROOT, "node_modules/undici-types"), join(project, "node_modules/undici-types"));
  const run = await runFile(
    process.execPath,
    [
      join(ROOT, "node_modules/typescript/bin/tsc"),
      "--strict",
      "--skipLibCheck",
      "false",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2022",
      "--lib",
      "es2023",
      "--types",
      "node",
      ...readdirSync(examples)
        .filter((file) => file.endsWith(".ts"))
        .map((file) => join(examples, file)),
    ],
    { cwd: project, env: cleanEnv() },
  );
  assert.equal(run.code, 0, `the examples and every entry, compiled against the installed package:\n${show(run)}`);
}

/** What an install brought: `npm ls --all --parseable` lines (the project's own included) and `du` of node_modules. */
export async function installFigures(project: string, cache: string) {
  const lines = (await npm(["ls", "--all", "--parseable"], project, cache)).trim().split("\n").length;
  const du = await runFile("du", ["-sh", "node_modules"], { cwd: project });
  const bytes = await runFile("du", ["-sb", "node_modules"], { cwd: project });
  return {
    lines,
    packages: lines - 1,
    size: du.stdout.split("\t")[0]!,
    bytes: Number(bytes.stdout.split("\t")[0]),
  };
}

/** One package's figures: its tarball as npm packed it, and what installing it into an empty project brought. */
export interface FigureRow {
  package: string;
  tarballBytes: number;
  unpackedBytes: number;
  files: number;
  /** `npm ls --all --parseable | wc -l`, the project's own line included. */
  lines: number;
  packages: number;
  /** `du -sh node_modules`. */
  du: string;
  /** `du -sb node_modules` (apparent size). */
  duBytes: number;
}

/** The figures of `tarball` installed into `project`; added to `ACPKIT_PACK_REPORT` (JSON lines) when it is set. */
export async function reportFigures(name: string, packed: Packed, tarball: string, project: string, cache: string) {
  const info = packed.info[tarball]!;
  const installed = await installFigures(project, cache);
  const row: FigureRow = {
    package: name,
    tarballBytes: info.size,
    unpackedBytes: info.unpackedSize,
    files: info.entryCount,
    lines: installed.lines,
    packages: installed.packages,
    du: installed.size,
    duBytes: installed.bytes,
  };
  const file = process.env.ACPKIT_PACK_REPORT;
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
  return row;
}
