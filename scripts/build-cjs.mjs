/**
 * Builds the CommonJS flavour of the library entries from the ESM build. The entries are read from package.json:
 * every export whose `require` condition points into dist/cjs is built from the same path under dist/src, with every
 * module reachable from it (same layout, a package.json saying "commonjs"). Types come from the ESM build's .d.ts.
 * `import.meta.url` becomes the CommonJS module's file URL; any other `import.meta` fails the build. Dynamic
 * `import()` of an optional peer becomes `require()` (both peers, `ws` and the MCP SDK, ship CommonJS).
 * Run after `tsc` (npm run build does).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const from = join(root, "dist/src");
const to = join(root, "dist/cjs");
/** Relative specifiers of `import ... from "./x.js"`, `export ... from`, `import "./x.js"` and `import("./x.js")`. */
const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.[^"']+)["']/g;
const IMPORT_META_URL = /\bimport\.meta\.url\b/g;
const FILE_URL = 'require("node:url").pathToFileURL(__filename).href';

/** The dist/src files of the exports that offer a `require` condition into dist/cjs. */
function entries() {
  const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const found = [];
  for (const [subpath, target] of Object.entries(exports)) {
    const required = typeof target === "object" && target !== null ? target.require : undefined;
    if (required === undefined) continue;
    if (!required.startsWith("./dist/cjs/"))
      throw new Error(`build-cjs: the require condition of ${subpath} must point into ./dist/cjs/, not ${required}`);
    found.push(required.slice("./dist/cjs/".length));
  }
  if (found.length === 0) throw new Error("build-cjs: no export of package.json has a require condition");
  return found;
}

rmSync(to, { recursive: true, force: true });
const seen = new Set();
const queue = entries().map((entry) => join(from, entry));
while (queue.length > 0) {
  const file = queue.pop();
  if (seen.has(file)) continue;
  seen.add(file);
  if (!existsSync(file)) throw new Error(`build-cjs: ${relative(root, file)} is missing; run tsc first`);
  const source = readFileSync(file, "utf8").replace(IMPORT_META_URL, FILE_URL);
  if (/\bimport\.meta\b/.test(source))
    throw new Error(
      `build-cjs: ${relative(root, file)} uses import.meta beyond import.meta.url, which has no CommonJS form here`,
    );
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
