/**
 * "Change the import; nothing else" for typed code: the programs in ./typed-programs (a 2.x app agent and client with
 * handlers declared on their own through the official handler, context and connection types; a 1.x agent and client
 * implementing `Agent` and `Client`; an `AcpServer` with the Node adapters and both remote clients) are compiled
 * twice by the TypeScript compiler in a consumer project: as written, against the official SDK (2.4.0, and 1.9.0 for
 * the classes), and with every import of the official SDK changed to the matching acpkit entry. Both compiles must
 * be free of errors, and the acpkit one must not see the official SDK's declarations at all.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import ts from "typescript";
import { repoRoot } from "../../src/protocol/testing/repo.js";

const PROGRAMS = ["apps.ts", "classes.ts", "remote.ts"];
let project: string;

before(() => {
  project = mkdtempSync(join(tmpdir(), "acpkit-typed-"));
  const modules = join(project, "node_modules");
  mkdirSync(join(modules, "@agentclientprotocol"), { recursive: true });
  mkdirSync(join(modules, "@acpkit"), { recursive: true });
  symlinkSync(repoRoot, join(modules, "@acpkit", "sdk"), "dir");
  for (const name of ["@agentclientprotocol/sdk", "sdk-1.9", "ws", "@types"])
    symlinkSync(join(repoRoot, "node_modules", name), join(modules, name), "dir");
  writeFileSync(join(project, "package.json"), '{ "name": "typed-consumer", "private": true, "type": "module" }\n');
});
after(() => rmSync(project, { recursive: true, force: true }));

/** The program's text with each official import replaced by acpkit's entry of the same subpath. */
function withAcpkitImports(source: string): string {
  return source.replace(
    /from "(?:@agentclientprotocol\/sdk|sdk-1\.9)((?:\/[\w/-]+)?)"/g,
    (_, subpath: string) => `from "@acpkit/sdk${subpath}"`,
  );
}

function compile(variant: "official" | "acpkit"): { errors: string[]; files: string[] } {
  const dir = join(project, variant);
  mkdirSync(dir, { recursive: true });
  const roots = PROGRAMS.map((name) => {
    const source = readFileSync(join(repoRoot, "test/dropin/typed-programs", name), "utf8");
    const file = join(dir, name);
    writeFileSync(file, variant === "acpkit" ? withAcpkitImports(source) : source);
    return file;
  });
  const program = ts.createProgram(roots, {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    verbatimModuleSyntax: true,
    esModuleInterop: true,
    types: ["node"],
    typeRoots: [join(project, "node_modules/@types")],
  });
  const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file
      ? `${diagnostic.file.fileName.slice(project.length + 1)}(${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1})`
      : "";
    return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
  });
  return { errors, files: program.getSourceFiles().map((file) => file.fileName) };
}

test("the typed programs compile against the official SDK, as written (the baseline)", () => {
  const { errors, files } = compile("official");
  assert.deepEqual(errors, []);
  assert.ok(files.some((file) => file.includes("/@agentclientprotocol/sdk/dist/")));
});

test("the same programs compile with the import changed to acpkit, without the official declarations", () => {
  const source = readFileSync(join(repoRoot, "test/dropin/typed-programs/remote.ts"), "utf8");
  assert.match(withAcpkitImports(source), /from "@acpkit\/sdk\/experimental\/http-client"/);
  assert.doesNotMatch(withAcpkitImports(source), /@agentclientprotocol\/sdk"|sdk-1\.9"/);
  const { errors, files } = compile("acpkit");
  assert.deepEqual(errors, []);
  assert.ok(
    files.includes(join(project, "node_modules/@acpkit/sdk/dist/src/entries/index.d.ts")) ||
      files.some((file) => file.endsWith("/dist/src/entries/index.d.ts")),
    "acpkit's declarations are used",
  );
  assert.deepEqual(
    files.filter((file) => /@agentclientprotocol[\\/]sdk|sdk-1\.9/.test(file)),
    [],
    "no official declaration is loaded",
  );
});
