/**
 * Builds the page of `acp inspect` (packages/cli/src/apps/inspect/page): type-checks it (its own tsconfig: DOM, no
 * Node), then bundles it with esbuild for the browser into packages/cli/dist/inspect-page/{page.js,page.css}, which
 * the inspector's server inlines into the one HTML document it serves, and worker.js (the page's ACP client, run in a
 * Web Worker), which it serves at /worker.js. The library comes in through its public
 * entries (@acpkit/sdk, /wire, /client-toolkit, /unstable), resolved through its exports to the bundled dist/esm
 * (scripts/bundle-esm.mjs runs first): a Node built-in anywhere in what the page imports fails the build, which keeps
 * the browser-safe core honest.
 * `--no-check` skips the type check (the bundle still builds).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const pageDir = join(root, "packages/cli/src/apps/inspect/page");
const outDir = join(root, "packages/cli/dist/inspect-page");
const require = createRequire(import.meta.url);

if (!process.argv.includes("--no-check")) {
  const tsc = require.resolve("typescript/bin/tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", join(pageDir, "tsconfig.json")], { stdio: "inherit" });
  } catch {
    process.stderr.write("build-inspect-page: the inspector's page does not type-check (above)\n");
    process.exit(1);
  }
}
mkdirSync(outDir, { recursive: true });
const result = await build({
  entryPoints: { page: join(pageDir, "main.tsx"), worker: join(pageDir, "worker/client-worker.ts") },
  outdir: outDir,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["chrome110", "firefox115", "safari16"],
  minify: process.env.ACPKIT_PAGE_MINIFY !== "0",
  legalComments: "none",
  jsx: "automatic",
  jsxImportSource: "preact",
  conditions: ["browser", "import"],
  logLevel: "warning",
  metafile: true,
});
const outputs = Object.entries(result.metafile.outputs).map(
  ([file, { bytes }]) => `${file.replace(root + "/", "")} ${bytes} B`,
);
process.stdout.write(`inspector page: ${outputs.join(", ")}\n`);
