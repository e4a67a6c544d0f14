/**
 * Builds the CommonJS flavour of the library entries (`require("acpkit")`, `acpkit/unstable`,
 * `acpkit/experimental/nes`) from the ESM build: every module reachable from those entries in dist/src is
 * transpiled to CommonJS into dist/cjs (same layout, a package.json saying "commonjs"). Types come from the ESM
 * build's .d.ts. Run after `tsc` (npm run build does).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const from = join(root, "dist/src");
const to = join(root, "dist/cjs");
const ENTRIES = ["index.js", "unstable.js", "experimental/nes.js", "experimental/v2.js", "experimental/v2-unstable.js"];
/** Relative specifiers of `import ... from "./x.js"`, `export ... from`, `import "./x.js"` and `import("./x.js")`. */
const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.[^"']+)["']/g;

rmSync(to, { recursive: true, force: true });
const seen = new Set();
const queue = ENTRIES.map((entry) => join(from, entry));
while (queue.length > 0) {
  const file = queue.pop();
  if (seen.has(file)) continue;
  seen.add(file);
  if (!existsSync(file)) throw new Error(`build-cjs: ${relative(root, file)} is missing; run tsc first`);
  const source = readFileSync(file, "utf8");
  for (const match of source.matchAll(IMPORT)) queue.push(resolve(dirname(file), match[1]));
  const { outputText } = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  const out = join(to, relative(from, file));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, outputText.replace(/\n\/\/# sourceMappingURL=.*$/m, ""));
}
writeFileSync(join(to, "package.json"), '{ "type": "commonjs" }\n');
process.stdout.write(`build-cjs: ${seen.size} modules -> ${relative(root, to)}\n`);
