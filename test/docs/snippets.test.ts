/**
 * Every TypeScript block of README.md, MIGRATING.md and docs/*.md compiles, as a reader would paste it into a project
 * that installed `@acpkit/sdk`: each block is its own module, compiled under `strict` with Node's types and no DOM
 * lib, against the library's declarations (by its package name) and, where a block imports them, `ws` with
 * `@types/ws`, the MCP SDK and zod. A block that is a fragment of a larger program says what it assumes in an HTML
 * comment right before it, invisible on GitHub and npm:
 *
 *     <!-- ts-context
 *     declare const stream: Stream;
 *     -->
 *
 * whose text is compiled in front of the block (imports included). `npm run check:snippets` runs this test alone.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import ts from "typescript";
import { repoRoot } from "../../src/protocol/testing/repo.js";
import { documents } from "./support.js";

export interface Snippet {
  /** Document and line of the block's first line of code, e.g. `README.md:62`. */
  where: string;
  context: string;
  code: string;
}

/** The TypeScript blocks of `text` (a Markdown document named `doc`), each with its `ts-context` comment. */
export function snippetsOf(doc: string, text: string): Snippet[] {
  const lines = text.split("\n");
  const out: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(?:ts|typescript)\s*$/.test(lines[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    let context = "";
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    if (before >= 0 && lines[before]!.trim() === "-->") {
      let open = before;
      while (open >= 0 && !lines[open]!.startsWith("<!-- ts-context")) open--;
      if (open >= 0) context = lines.slice(open + 1, before).join("\n");
    }
    out.push({ where: `${doc}:${start + 1}`, context, code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return out;
}

const project = mkdtempSync(join(tmpdir(), "acpkit-snippets-"));
after(() => rmSync(project, { recursive: true, force: true }));

function setUp(): void {
  const modules = join(project, "node_modules");
  mkdirSync(join(modules, "@acpkit"), { recursive: true });
  mkdirSync(join(modules, "@types"), { recursive: true });
  mkdirSync(join(modules, "@modelcontextprotocol"), { recursive: true });
  symlinkSync(repoRoot, join(modules, "@acpkit", "sdk"), "dir");
  for (const name of ["ws", "zod", "undici-types", "@modelcontextprotocol/sdk", "@types/node", "@types/ws"])
    symlinkSync(join(repoRoot, "node_modules", name), join(modules, name), "dir");
  writeFileSync(join(project, "package.json"), '{ "name": "doc-snippets", "private": true, "type": "module" }\n');
}

test("every TypeScript block of the README and docs/ compiles under strict, without the DOM lib", () => {
  setUp();
  const snippets = documents()
    .filter((doc) => !doc.startsWith("packages/") && !doc.startsWith("examples/"))
    .flatMap((doc) => snippetsOf(doc, readFileSync(join(repoRoot, doc), "utf8")));
  assert.ok(snippets.length >= 15, `found ${snippets.length} blocks`);
  const files = new Map<string, Snippet>();
  snippets.forEach((snippet, i) => {
    const file = join(project, `snippet-${i}.ts`);
    // Context first, then the block, as one module; `export {}` keeps a block without imports a module too.
    writeFileSync(file, `${snippet.context}\n${snippet.code}\nexport {};\n`);
    files.set(file, snippet);
  });
  const program = ts.createProgram([...files.keys()], {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
    typeRoots: [join(project, "node_modules/@types")],
  });
  const errors = ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file !== undefined && files.has(diagnostic.file.fileName))
    .map((diagnostic) => {
      const snippet = files.get(diagnostic.file!.fileName)!;
      const line = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line;
      const contextLines = snippet.context.split("\n").length; // the block starts on the line after its context
      const [doc, first] = snippet.where.split(":");
      const at =
        line < contextLines ? `${snippet.where} (its ts-context)` : `${doc}:${Number(first) + line - contextLines}`;
      return `${at}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
    });
  assert.equal(errors.length, 0, `TypeScript blocks that do not compile:\n${errors.join("\n")}`);
});
