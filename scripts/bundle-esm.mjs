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
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
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

/**
 * The generated checkers (src/protocol/generated/checkers*.ts, about 400 KB of code for the schemas the root entry
 * reaches) are not in the bundle: V8 would parse them at every import, which was about half of what importing the root
 * entry cost (issue 20, cold start). Each goes to a file of its own, dist/esm/checkers/<name>.js, and the import of it
 * in validators*.js is replaced by a small module that loads that file when the first validation asks for it: in Node
 * synchronously, by `require` of its CommonJS twin (<name>.cjs; Node 20.16+ and 22.3+, which have
 * `process.getBuiltinModule`); elsewhere (browsers, older Node) by a top-level `await import()` of <name>.js when the
 * bundle is evaluated, which is what a static import did (browser bundlers follow that import as usual). The checkers import nothing at run time (the kernel is passed to
 * their `build`), so the loaded file shares the bundle's kernel, error classes and state.
 */
const GENERATED = join(root, "dist/src/protocol/generated");
const CHECKERS_OUT = join(to, "checkers");
/** Stands for the path of dist/esm/checkers/<name>.js (or .cjs) until the bundle's files are written (relative to each file). */
const placeholder = (name, ext) => `@@acpkit-checkers:${name}:${ext}@@`;
const PLACEHOLDER = /@@acpkit-checkers:([\w.]+):(js|cjs)@@/g;

const lazyCheckers = {
  name: "acpkit-lazy-checkers",
  setup(bundler) {
    bundler.onResolve({ filter: /^\.\/checkers[\w.]*\.js$/ }, (args) => {
      if (dirname(args.importer) !== GENERATED || !/^validators[\w.]*\.js$/.test(basename(args.importer))) return;
      return { path: basename(args.path, ".js"), namespace: "acpkit-lazy-checkers" };
    });
    bundler.onResolve({ filter: /^@@acpkit-checkers:/ }, (args) => ({ path: args.path, external: true }));
    bundler.onLoad({ filter: /.*/, namespace: "acpkit-lazy-checkers" }, (args) => {
      const esm = JSON.stringify(placeholder(args.path, "js"));
      const commonjs = JSON.stringify(placeholder(args.path, "cjs"));
      return {
        contents: [
          "const node = globalThis.process;",
          'const sync = typeof node?.getBuiltinModule === "function";',
          `const loaded = sync ? undefined : await import(${esm});`,
          "export const build = (kernel) =>",
          '  (loaded ?? node.getBuiltinModule("node:module").createRequire(import.meta.url)(' +
            commonjs +
            ")).build(kernel);",
          "",
        ].join("\n"),
        loader: "js",
      };
    });
  },
};

const checkerNames = readdirSync(GENERATED)
  .filter((file) => /^checkers[\w.]*\.js$/.test(file))
  .map((file) => basename(file, ".js"));
if (checkerNames.length === 0)
  throw new Error(`bundle-esm: no checkers*.js in ${relative(root, GENERATED)}; run tsc -b`);

rmSync(to, { recursive: true, force: true });
const result = await build({
  entryPoints: Object.fromEntries(Object.keys(entryPoints).map((name) => [name, `acpkit-entry:${name}`])),
  plugins: [virtualEntries, lazyCheckers],
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
  write: false,
  logLevel: "warning",
});
const checkers = await build({
  entryPoints: Object.fromEntries(checkerNames.map((name) => [name, join(GENERATED, `${name}.js`)])),
  outdir: CHECKERS_OUT,
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  sourcemap: true,
  metafile: true,
  logLevel: "warning",
});
// The same as CommonJS (.cjs), for Node's synchronous require on first use: plain CommonJS loads on every Node
// version, with no require() of an ES module (and none of the warnings some Node versions print for it).
const commonjsCheckers = await build({
  entryPoints: Object.fromEntries(checkerNames.map((name) => [name, join(GENERATED, `${name}.js`)])),
  outdir: CHECKERS_OUT,
  outExtension: { ".js": ".cjs" },
  bundle: true,
  format: "cjs",
  platform: "neutral",
  target: "es2022",
  metafile: true,
  logLevel: "warning",
});
for (const [file, inputs] of [
  ...Object.entries(checkers.metafile.outputs),
  ...Object.entries(commonjsCheckers.metafile.outputs),
]) {
  if (file.endsWith(".js") && Object.keys(inputs.inputs).length !== 1)
    throw new Error(`bundle-esm: ${file} must be one generated module that imports nothing at run time`);
}
const placed = new Set();
for (const output of result.outputFiles) {
  mkdirSync(dirname(output.path), { recursive: true });
  if (!output.path.endsWith(".js")) {
    writeFileSync(output.path, output.contents);
    continue;
  }
  const text = output.text.replace(PLACEHOLDER, (_match, name, ext) => {
    if (!checkerNames.includes(name)) throw new Error(`bundle-esm: no checkers module ${name}`);
    placed.add(name);
    const path = relative(dirname(output.path), join(CHECKERS_OUT, `${name}.${ext}`))
      .split(sep)
      .join("/");
    return path.startsWith(".") ? path : `./${path}`;
  });
  writeFileSync(output.path, text);
}
const unplaced = checkerNames.filter((name) => !placed.has(name));
if (unplaced.length > 0) throw new Error(`bundle-esm: no entry loads ${unplaced.join(", ")}`);
const outputs = Object.keys(result.metafile.outputs).filter((path) => path.endsWith(".js"));
const inputs = Object.keys(result.metafile.inputs).length;
process.stdout.write(
  `bundle-esm: ${Object.keys(entryPoints).length} entries (${inputs} modules) -> ${outputs.length} files in ${relative(root, to)}, ` +
    `checkers loaded on first use: ${checkerNames.join(", ")}\n`,
);
