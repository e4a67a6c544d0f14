/**
 * The layering of the programs (@acpkit/cli), as src/layering.test.ts checks the library's:
 * - nothing here imports the library's sources: the library comes in through its public entries (`@acpkit/sdk`
 *   and the subpaths its package.json exports), like any other program's;
 * - apps/ hold the programs, one folder each, and never import cli/ or another app (what several apps use lives in
 *   apps/shared/, which imports no app; the one app built on another is listed in `APP_USES`, with why);
 * - cli/ is thin: commands that read flags and call apps; no file over `THIN_LINES` lines, no npm package but the
 *   library (an app brings what it needs: ws, the MCP SDK);
 * - entries/ (the subpaths this package exports for the repository's tests) import apps only.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

// Runs from packages/cli/dist/src/layering.test.js; reads the TypeScript sources.
const here = dirname(fileURLToPath(import.meta.url));
const srcRoot = resolve(here, "../../src");
const cliPackage = JSON.parse(readFileSync(resolve(here, "../../package.json"), "utf8")) as {
  dependencies: Record<string, string>;
};
const libraryPackage = JSON.parse(readFileSync(resolve(here, "../../../../package.json"), "utf8")) as {
  exports: Record<string, unknown>;
};

/** The longest a file of cli/ may be: a command reads flags and calls an app. */
const THIN_LINES = 250;

interface SourceFile {
  path: string;
  /** Relative to packages/cli/src, with `/`. */
  where: string;
  isTest: boolean;
}

function sourceFiles(dir: string): SourceFile[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    if (!entry.name.endsWith(".ts")) return [];
    const where = relative(srcRoot, path).split(sep).join("/");
    return [{ path, where, isTest: entry.name.endsWith(".test.ts") || where.includes("/testing/") }];
  });
}

function importsOf(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const match of source.matchAll(pattern)) found.push((match[1] ?? match[2])!);
  return found;
}

/** `apps/chat` for apps/chat/x.ts, `cli`, `entries`, or `(root)`. */
function unitOf(where: string): string {
  const parts = where.split("/");
  if (parts.length === 1) return "(root)";
  return parts[0] === "apps" ? `apps/${parts[1]}` : parts[0]!;
}

/**
 * The few apps built on another app, each with why. Anything else several apps use belongs in apps/shared/.
 */
const APP_USES: Readonly<Record<string, readonly string[]>> = {
  // The inspector stands in front of an agent as acp tap does: it runs the tap proxy and watches its wire.
  "apps/inspect": ["apps/tap"],
};

/** Why `from` may not import `to` (both units), or undefined. */
function unitViolation(from: string, to: string): string | undefined {
  if (from === to || to === "apps/shared" || APP_USES[from]?.includes(to)) return undefined;
  if (from.startsWith("apps/"))
    return to.startsWith("apps/") ? `an app imports another app (${to})` : `an app imports ${to}/`;
  if (from === "entries") return to.startsWith("apps/") ? undefined : `entries/ import ${to}/`;
  if (from === "cli") return to.startsWith("apps/") ? undefined : `cli/ imports ${to}/`;
  return `${from} imports ${to}`;
}

const librarySubpaths = new Set(Object.keys(libraryPackage.exports).map((key) => key.replace(/^\./, "@acpkit/sdk")));

/** Why a bare specifier is refused in `unit`, or undefined. */
function packageViolation(unit: string, specifier: string, isTest: boolean): string | undefined {
  if (specifier.startsWith("node:")) return undefined;
  if (specifier === "@acpkit/sdk" || specifier.startsWith("@acpkit/sdk/"))
    return librarySubpaths.has(specifier) ? undefined : "not a public entry of the library";
  if (unit === "cli" && !isTest) return "cli/ imports no npm package but the library";
  const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;
  return name in cliPackage.dependencies ? undefined : "not a dependency of @acpkit/cli";
}

test("the programs import the library through its public entries only, apps never cli/ or each other", () => {
  const files = sourceFiles(srcRoot);
  assert.ok(files.length > 50, `expected the sources under ${srcRoot}`);
  const violations: string[] = [];
  for (const file of files) {
    const unit = unitOf(file.where);
    for (const specifier of importsOf(readFileSync(file.path, "utf8"))) {
      if (specifier.startsWith(".")) {
        const target = resolve(dirname(file.path), specifier);
        const rel = relative(srcRoot, target);
        if (rel.startsWith("..")) {
          violations.push(`${file.where} imports ${specifier}: outside the programs (use the library's entries)`);
          continue;
        }
        const refused = unitViolation(unit, unitOf(rel.split(sep).join("/")));
        if (refused !== undefined) violations.push(`${file.where} imports ${specifier}: ${refused}`);
      } else {
        const refused = packageViolation(unit, specifier, file.isTest);
        if (refused !== undefined) violations.push(`${file.where} imports ${specifier}: ${refused}`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

test(`cli/ is thin: no command file over ${THIN_LINES} lines`, () => {
  const long = sourceFiles(join(srcRoot, "cli"))
    .filter((file) => !file.isTest)
    .map((file) => ({ where: file.where, lines: readFileSync(file.path, "utf8").split("\n").length }))
    .filter((file) => file.lines > THIN_LINES);
  assert.deepEqual(long, []);
});

test("the checks themselves catch a wrong-way arrow", () => {
  assert.match(unitViolation("apps/exec", "cli") ?? "", /an app imports cli/);
  assert.match(unitViolation("apps/exec", "apps/chat") ?? "", /another app/);
  assert.match(unitViolation("apps/tap", "apps/inspect") ?? "", /another app/);
  assert.equal(unitViolation("apps/exec", "apps/shared"), undefined);
  assert.equal(unitViolation("cli", "apps/exec"), undefined);
  assert.match(unitViolation("entries", "cli") ?? "", /entries/);
  assert.equal(packageViolation("apps/chat", "@acpkit/sdk/node", false), undefined);
  assert.match(packageViolation("apps/chat", "@acpkit/sdk/dist/src/acp/methods.js", false) ?? "", /public entry/);
  assert.match(packageViolation("cli", "ws", false) ?? "", /no npm package/);
  assert.equal(packageViolation("apps/serve", "ws", false), undefined);
  assert.match(packageViolation("apps/chat", "left-pad", false) ?? "", /not a dependency/);
});
