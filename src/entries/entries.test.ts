/**
 * The entries are thin: each file of src/entries (a public subpath of package.json) lists what it exports, by name,
 * and holds no logic. Allowed: named re-exports, type-only imports and exported type aliases (an entry's defaults
 * for generic types), and `export type * from` a module generated from the schema (the wire types, public by
 * definition; the API report under api/ lists them). A class, a function, a value, an `export *`: refused.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

// Runs from dist/src/entries/entries.test.js; reads the TypeScript sources.
const entriesRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../src/entries");

function entryFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entryFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** What is wrong with one top-level statement of an entry, or undefined. */
function refusal(statement: ts.Statement): string | undefined {
  if (ts.isExportDeclaration(statement)) {
    if (statement.exportClause !== undefined) return undefined;
    const from = statement.moduleSpecifier && (statement.moduleSpecifier as ts.StringLiteral).text;
    if (statement.isTypeOnly && from !== undefined && /\/protocol\/generated\/[\w.-]+\.js$/.test(from))
      return undefined;
    return `export * from "${from}": list the names`;
  }
  if (ts.isImportDeclaration(statement))
    return statement.importClause?.isTypeOnly ? undefined : "a value import: an entry only re-exports";
  if (ts.isTypeAliasDeclaration(statement)) return undefined;
  return `${ts.SyntaxKind[statement.kind]}: entries hold no logic (move it to its layer)`;
}

test("every entry lists its exports by name and holds no logic", () => {
  const files = entryFiles(entriesRoot);
  assert.ok(files.length >= 15, `expected the entries under ${entriesRoot}`);
  const refused: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
    for (const statement of source.statements) {
      const why = refusal(statement);
      if (why !== undefined) {
        const { line } = source.getLineAndCharacterOfPosition(statement.getStart());
        refused.push(`${relative(entriesRoot, file)}:${line + 1}: ${why}`);
      }
    }
  }
  assert.deepEqual(refused, []);
});

test("the check refuses what it should", () => {
  const statements = (text: string) => ts.createSourceFile("x.ts", text, ts.ScriptTarget.ES2022, true).statements;
  const [star, typeStar, generated, named, cls, value] = statements(
    [
      'export * from "../jsonrpc/index.js";',
      'export type * from "../jsonrpc/index.js";',
      'export type * from "../protocol/generated/types.js";',
      'export { now } from "../jsonrpc/tap.js";',
      "export class X {}",
      "export const y = 1;",
    ].join("\n"),
  );
  assert.match(refusal(star!) ?? "", /list the names/);
  assert.match(refusal(typeStar!) ?? "", /list the names/);
  assert.equal(refusal(generated!), undefined);
  assert.equal(refusal(named!), undefined);
  assert.match(refusal(cls!) ?? "", /no logic/);
  assert.match(refusal(value!) ?? "", /no logic/);
});
