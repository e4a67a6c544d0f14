/**
 * Builds the CommonJS flavour of the library entries from the ESM build. The entries are read from package.json:
 * every export whose `require` condition points into dist/cjs is built from the same path under dist/src, with every
 * module reachable from it (same layout, a package.json saying "commonjs"). Types come from the ESM build's .d.ts.
 * `import.meta.url` becomes the CommonJS module's file URL; any other `import.meta` fails the build. Dynamic
 * `import()` of an optional peer becomes `require()` (both peers, `ws` and the MCP SDK, ship CommonJS).
 * Incremental: only modules whose ESM file changed since their CommonJS file was written are transpiled again.
 * Run after `tsc` (npm run build does).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

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

/** Removes files under `dir` that are not in `keep`, and folders left empty; returns how many files went. */
function removeStale(dir, keep) {
  let removed = 0;
  if (!existsSync(dir)) return 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      removed += removeStale(path, keep);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
    } else if (!keep.has(path)) {
      rmSync(path);
      removed++;
    }
  }
  return removed;
}

// Incremental: a module whose CommonJS file is newer than its ESM file is not transpiled again (an up-to-date tree
// builds in a second, not half a minute); files no entry reaches any more are removed.
const seen = new Set();
const outputs = new Set([join(to, "package.json")]);
let transpiled = 0;
let ts;
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
  const out = join(to, relative(from, file));
  outputs.add(out);
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(file).mtimeMs) continue;
  // TypeScript loads only when something is to be transpiled: loading it is most of an up-to-date run.
  ts ??= (await import("typescript")).default;
  const { outputText } = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, outputText.replace(/\n\/\/# sourceMappingURL=.*$/m, ""));
  transpiled++;
}
mkdirSync(to, { recursive: true });
writeFileSync(join(to, "package.json"), '{ "type": "commonjs" }\n');
const removed = removeStale(to, outputs);
process.stdout.write(
  `build-cjs: ${seen.size} modules -> ${relative(root, to)} ` +
    `(${transpiled} transpiled, ${seen.size - transpiled} up to date` +
    `${removed > 0 ? `, ${removed} stale files removed` : ""})\n`,
);
