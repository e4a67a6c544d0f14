/**
 * Before an incremental build (`tsc -b`): removes compiled files whose TypeScript source is gone (a file moved or
 * deleted), so that no stale module or test is left in dist/ to be imported or run. Everything else stays, and
 * `tsc -b` rebuilds only what changed. `npm run clean` removes the build outputs altogether.
 */
import { existsSync, readdirSync, rmSync, rmdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** [output folder, the source folder it mirrors] */
const trees = [
  ["dist/src", "src"],
  ["dist/test", "test"],
  ["dist/bench", "bench"],
  ["dist/examples", "examples"],
  ["packages/cli/dist/src", "packages/cli/src"],
];
const OUTPUT = /\.(js|d\.ts)(\.map)?$/;

let removed = 0;
function prune(outDir, srcDir) {
  if (!existsSync(outDir)) return;
  for (const entry of readdirSync(outDir, { withFileTypes: true })) {
    const out = join(outDir, entry.name);
    if (entry.isDirectory()) {
      prune(out, join(srcDir, entry.name));
      if (readdirSync(out).length === 0) rmdirSync(out);
      continue;
    }
    if (!OUTPUT.test(entry.name)) continue;
    const stem = entry.name.replace(OUTPUT, "");
    const sources = [".ts", ".mts", ".tsx"].map((ext) => join(srcDir, stem + ext));
    if (!sources.some((source) => existsSync(source))) {
      rmSync(out);
      removed++;
    }
  }
}
for (const [out, src] of trees) prune(join(root, out), join(root, src));
if (removed > 0) process.stderr.write(`prune-dist: removed ${removed} compiled files whose source is gone\n`);
