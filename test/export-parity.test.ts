/**
 * Export parity with the official SDK, every entry point: each subpath `@agentclientprotocol/sdk` 2.4.0 and 1.9.0
 * export has an acpkit counterpart under the same subpath of acpkit's `package.json`, exporting every value (same
 * kind: function, object, string...) and every type name (checked by compiling a generated file that imports them
 * all through the package's own `exports`), and the schema JSON subpaths resolve to the schemas they name.
 *
 * Entries not yet built are listed in `NOT_YET` with what is missing; the test checks that they really are missing,
 * so it fails (and asks for the list to shrink) the day they arrive.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { repoRoot } from "../src/protocol/testing/repo.js";

interface PackageJson {
  name: string;
  exports: Record<string, string | Record<string, string>>;
}
const readPackage = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson;

/** The official packages, by the name they are installed under here. */
const OFFICIAL = [
  { label: "2.4.0", name: "@agentclientprotocol/sdk" },
  { label: "1.9.0", name: "sdk-1.9" },
] as const;

/** Entries that acpkit does not have yet, with the reason (none today: protocol v2's entries arrived last). */
const NOT_YET: Readonly<Record<string, string>> = {};

/**
 * Names an official entry exports that acpkit leaves out on purpose, by official label and subpath, with the reason
 * (also in MIGRATING.md). The test checks they really are absent, so the list cannot go stale.
 */
const ABSENT_BY_DESIGN: Readonly<Record<string, { names: readonly string[]; reason: string }>> = {
  "1.9.0 ./experimental/v2": {
    names: [
      "batchRequest",
      "batchNotification",
      "AnyBatchCall",
      "AnyBatchMessage",
      "AnyBatchResponse",
      "AnyCall",
      "AnyWireMessage",
      "BatchEntry",
      "BatchNotification",
      "BatchOutputs",
      "BatchRequest",
      "AgentBatchEntry",
      "ClientBatchEntry",
      "AuthCapabilities",
      "ProtocolLevelNotification",
    ],
    reason:
      "1.9.0's v2 entry followed an older draft: JSON-RPC batches (which the current draft and 2.4.0 refuse " +
      "with -32600) " +
      ("and two definitions the current v2 schema no longer has; acpkit's v2 entry follows the current draft, " +
        "as 2.4.0 does"),
  },
};
const absentByDesign = (label: string, subpath: string): ReadonlySet<string> =>
  new Set(ABSENT_BY_DESIGN[`${label} ${subpath}`]?.names ?? []);

const ours = readPackage(repoRoot);
const officialDir = (name: string) => join(repoRoot, "node_modules", name);

/** The `types` file an export of a package points to. */
function typesOf(dir: string, target: string | Record<string, string>): string {
  const file = typeof target === "string" ? target : target.types;
  assert.ok(file, `no types condition in ${JSON.stringify(target)}`);
  return join(dir, file);
}

const compilerOptions: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  types: ["node"],
  typeRoots: [join(repoRoot, "node_modules/@types")],
};

/**
 * One compiler host for every program below: each file (the Node and ES library declarations above all, then both
 * packages' declarations) is parsed once, not once per program. The files do not change while the tests run.
 */
const host = ts.createCompilerHost(compilerOptions);
const parsed = new Map<string, ts.SourceFile | undefined>();
const parse = host.getSourceFile.bind(host);
host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
  const key = `${fileName}\0${typeof languageVersion === "object" ? JSON.stringify(languageVersion) : languageVersion}`;
  if (!parsed.has(key)) parsed.set(key, parse(fileName, languageVersion, onError, shouldCreate));
  return parsed.get(key);
};
const createProgram = (root: string) => ts.createProgram([root], compilerOptions, host);

/** Every name (value or type) a declaration file exports, by the TypeScript compiler. */
function exportedNames(dts: string): string[] {
  const program = createProgram(dts);
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(dts)!)!;
  return checker.getExportsOfModule(module).map((symbol) => symbol.name);
}

/** The names a declaration file exports as values (classes, functions, constants), by the TypeScript compiler. */
function exportedValueNames(dts: string): string[] {
  const program = createProgram(dts);
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(dts)!)!;
  return checker
    .getExportsOfModule(module)
    .filter(
      (symbol) =>
        ((symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol).flags &
          ts.SymbolFlags.Value) !==
        0,
    )
    .map((symbol) => symbol.name);
}

/** Imports an official entry; undefined when it cannot load because an optional peer of it is not installed. */
async function importOfficial(specifier: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_MODULE_NOT_FOUND" && !String(error).includes(specifier))
      return undefined;
    throw error;
  }
}

/** Type-checks a generated module placed inside the repository (so `acpkit/...` resolves through our exports). */
function compile(source: string): string[] {
  const dir = mkdtempSync(join(repoRoot, "dist", "parity-"));
  try {
    const file = join(dir, "imports.mts");
    writeFileSync(file, source);
    const program = createProgram(file);
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const codeSubpaths = (pkg: PackageJson) => Object.keys(pkg.exports).filter((s) => !s.endsWith(".json"));
const jsonSubpaths = (pkg: PackageJson) => Object.keys(pkg.exports).filter((s) => s.endsWith(".json"));
const asSpecifier = (subpath: string) => (subpath === "." ? "@acpkit/sdk" : `@acpkit/sdk/${subpath.slice(2)}`);

test("every official subpath has an acpkit counterpart in package.json exports (or is listed as not yet built)", () => {
  for (const { label, name } of OFFICIAL) {
    for (const subpath of Object.keys(readPackage(officialDir(name)).exports)) {
      if (subpath === "./package.json") continue;
      if (subpath in NOT_YET) {
        assert.ok(!(subpath in ours.exports), `${subpath} is exported now: remove it from NOT_YET`);
        continue;
      }
      assert.ok(subpath in ours.exports, `${label} exports ${subpath}; acpkit does not`);
    }
  }
});

for (const { label, name } of OFFICIAL) {
  const official = readPackage(officialDir(name));
  for (const subpath of codeSubpaths(official)) {
    if (subpath in NOT_YET) continue;
    test(`${label} ${subpath}: every value export is in ${asSpecifier(subpath)}, of the same kind`, async () => {
      const theirs = await importOfficial(subpath === "." ? name : `${name}/${subpath.slice(2)}`);
      const mine = (await import(asSpecifier(subpath))) as Record<string, unknown>;
      // An entry whose optional peer is absent here (2.4.0's mcp-server needs `@modelcontextprotocol/server`) is
      // compared by the value names its declarations export.
      const all = theirs
        ? Object.keys(theirs)
        : exportedValueNames(typesOf(officialDir(name), official.exports[subpath]!));
      const absent = absentByDesign(label, subpath);
      const names = all.filter((n) => !absent.has(n));
      assert.deepEqual(
        names.filter((n) => !(n in mine)),
        [],
        "missing values",
      );
      assert.deepEqual(
        all.filter((n) => absent.has(n) && n in mine),
        [],
        "exported now: remove them from ABSENT_BY_DESIGN",
      );
      for (const n of names)
        if (theirs) assert.equal(typeof mine[n], typeof theirs[n], `${n} is a ${typeof theirs[n]} in both`);
    });
  }
}

test("every name (value or type) of every official entry compiles as an import from its acpkit entry", () => {
  const lines: string[] = [];
  const counts: string[] = [];
  let i = 0;
  for (const { label, name } of OFFICIAL) {
    const dir = officialDir(name);
    const official = readPackage(dir);
    for (const subpath of codeSubpaths(official)) {
      if (subpath in NOT_YET) continue;
      const absent = absentByDesign(label, subpath);
      const names = exportedNames(typesOf(dir, official.exports[subpath]!)).filter((n) => !absent.has(n));
      counts.push(`${label} ${subpath}: ${names.length}`);
      const k = i++;
      lines.push(
        `import type { ${names.map((n) => `${n} as e${k}_${n}`).join(", ")} } from ` +
          `${JSON.stringify(asSpecifier(subpath))};`,
      );
    }
  }
  assert.deepEqual(compile(lines.join("\n") + "\nexport {};\n"), [], counts.join(", "));
});

test("every official schema JSON subpath resolves in acpkit to a schema of the same version", () => {
  const require = createRequire(join(repoRoot, "package.json"));
  for (const { label, name } of OFFICIAL) {
    for (const subpath of jsonSubpaths(readPackage(officialDir(name)))) {
      const theirs = require(`${name}/${subpath.slice(2)}`) as { $defs?: object };
      const mine = require(asSpecifier(subpath)) as { $defs?: object };
      assert.ok(mine.$defs, `${asSpecifier(subpath)} is a JSON schema`);
      const missing = Object.keys(theirs.$defs ?? {}).filter((def) => !(def in mine.$defs!));
      // 2.4.0 ships the very schema we vendored; 1.9.0's older one may have definitions renamed since.
      if (label === "2.4.0") assert.deepEqual(mine, theirs, `${subpath} is the schema 2.4.0 ships`);
      else
        assert.ok(
          missing.length < Object.keys(theirs.$defs ?? {}).length / 4,
          `${subpath}: ${label} definitions missing here: ${missing.join(", ")}`,
        );
    }
  }
});

test("every acpkit entry that stands for an official one has a types condition that resolves", () => {
  for (const { name } of OFFICIAL) {
    for (const subpath of codeSubpaths(readPackage(officialDir(name)))) {
      if (subpath in NOT_YET) continue;
      const dts = typesOf(repoRoot, ours.exports[subpath]!);
      assert.ok(exportedNames(dts).length > 0, `${dts} exports names`);
    }
  }
});
