/**
 * The inspector's page ships in @acpkit/cli: `npm pack` (through scripts/pack.mjs, as publishing does) puts the
 * bundle built at package build time (dist/inspect-page/page.js and page.css) into the tarball, and not the page's
 * sources; the bundle has no Node built-in in it (the library's browser-safe core, bundled for a browser).
 * ACPKIT_PACK_TEST=0 skips it (as the packed-library test).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const SKIP = process.env.ACPKIT_PACK_TEST === "0" ? "ACPKIT_PACK_TEST=0" : false;

test(
  "npm pack of @acpkit/cli ships the inspector's page bundle, not its sources",
  { skip: SKIP, timeout: 180_000 },
  () => {
    const out = mkdtempSync(join(tmpdir(), "acpkit-inspect-pack-"));
    try {
      const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
      const printed = execFileSync(process.execPath, [join(ROOT, "scripts/pack.mjs"), "--out", out], {
        cwd: ROOT,
        env,
        encoding: "utf8",
      });
      const { cli } = JSON.parse(printed.slice(printed.indexOf("{"))) as { cli: string };
      const files = execFileSync("tar", ["-tzf", cli], { encoding: "utf8" }).split("\n");
      assert.ok(files.includes("package/dist/inspect-page/page.js"), "the page's script");
      assert.ok(files.includes("package/dist/inspect-page/page.css"), "the page's style");
      assert.ok(files.includes("package/dist/inspect-page/worker.js"), "the page's client worker");
      assert.ok(files.includes("package/dist/src/apps/inspect/run-inspect.js"), "the inspector's server");
      assert.deepEqual(
        files.filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".d.ts")),
        [],
        "no TypeScript sources",
      );
      const bundle = readFileSync(join(ROOT, "packages/cli/dist/inspect-page/page.js"), "utf8");
      assert.doesNotMatch(bundle, /from\s*["']node:|require\(["']node:/, "no Node built-in in the page");
      assert.ok(bundle.length > 100_000, "the library's client, rule engine and session model are in the bundle");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
);
