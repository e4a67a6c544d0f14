/**
 * Bundles the library's ES module entries for Node and browsers: every export of package.json whose `import`
 * condition points into ./dist/esm/ is built from the same path under dist/src/entries (tsc's output), with every
 * module of the library it reaches, into dist/esm: one file per entry plus shared chunks (code splitting), so that each
 * module of the library exists once however many entries a program imports (one `RequestError` class, one method
 * table). Packages (the optional peers `ws`, the MCP SDK, `pg`) and Node's built-ins stay imports.
 *
 * Why: Node loads an ES module graph one module at a time (resolve, read, compile, link), about 0.3 ms each on a quiet
 * machine and several times that on a busy one; the root entry reached 122 modules, which alone is more than the
 * 30 ms a cold start may add (issue 20; `npm run bench`, (s) cold start). The sources keep their small files; only the
 * published form is bundled. tsc's per-module output stays in dist/src (declarations, tests, the CommonJS build).
 * Run after `tsc -b` (npm run build does): a stale dist/esm is what `@acpkit/sdk` gives the programs and the tests that
 * import the package by name.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const from = join(root, "dist/src/entries");
const to = join(root, "dist/esm");

/** `{ name: dist/src/entries/<name>.js }` for the exports whose `import` condition is ./dist/esm/<name>.js. */
function entries() {
  const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const found = {};
  for (const [subpath, target] of Object.entries(exports)) {
    const imported = typeof target === "object" && target !== null ? target.import : undefined;
    if (imported === undefined) continue;
    if (!imported.startsWith("./dist/esm/") || !imported.endsWith(".js")) {
      throw new Error(`bundle-esm: the import condition of ${subpath} must point into ./dist/esm/, not ${imported}`);
    }
    if (target.default !== undefined && target.default !== imported) {
      throw new Error(`bundle-esm: the default condition of ${subpath} must be its import condition (${imported})`);
    }
    const name = imported.slice("./dist/esm/".length, -".js".length);
    const source = join(from, `${name}.js`);
    if (!existsSync(source)) throw new Error(`bundle-esm: ${relative(root, source)} is missing; run tsc -b first`);
    found[name] = source;
  }
  if (Object.keys(found).length === 0)
    throw new Error("bundle-esm: no export of package.json imports from ./dist/esm/");
  return found;
}

const entryPoints = entries();
const ROOT_ENTRY = "index";
if (!(ROOT_ENTRY in entryPoints))
  throw new Error("bundle-esm: package.json has no root export into ./dist/esm/index.js");

/**
 * Each entry is a small virtual module that re-exports its tsc output; every entry but the root also imports the root
 * first. So every module the root reaches is reached by every entry and lands in ONE shared chunk: the root entry
 * loads two files, not one per combination of entries its modules belong to (26 with plain splitting). Importing
 * another entry loads the root's chunk too, which programs that use it almost always do anyway.
 */
const virtualEntries = {
  name: "acpkit-entries",
  setup(bundler) {
    bundler.onResolve({ filter: /^acpkit-entry:/ }, (args) => ({
      path: args.path.slice("acpkit-entry:".length),
      namespace: "acpkit-entry",
    }));
    bundler.onLoad({ filter: /.*/, namespace: "acpkit-entry" }, (args) => {
      const own = JSON.stringify(entryPoints[args.path]);
      const root = JSON.stringify(entryPoints[ROOT_ENTRY]);
      return {
        contents: args.path === ROOT_ENTRY ? `export * from ${own};\n` : `import ${root};\nexport * from ${own};\n`,
        resolveDir: from,
        loader: "js",
      };
    });
  },
};

rmSync(to, { recursive: true, force: true });
const result = await build({
  entryPoints: Object.fromEntries(Object.keys(entryPoints).map((name) => [name, `acpkit-entry:${name}`])),
  plugins: [virtualEntries],
  outdir: to,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  packages: "external",
  external: ["node:*"],
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: true,
  metafile: true,
  logLevel: "warning",
});
const outputs = Object.keys(result.metafile.outputs).filter((path) => path.endsWith(".js"));
const inputs = Object.keys(result.metafile.inputs).length;
process.stdout.write(
  `bundle-esm: ${Object.keys(entryPoints).length} entries (${inputs} modules) -> ${outputs.length} files in ${relative(root, to)}\n`,
);
