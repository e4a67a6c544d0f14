/**
 * Packs the two npm packages of this repository into publishable tarballs: `@acpkit/sdk` (the library, no runtime
 * dependency) and `@acpkit/cli` (the `acp` programs, depending on @acpkit/sdk, ws, pg and the MCP SDK).
 *
 *   node scripts/pack.mjs [--out DIR] [--library-only]   (npm run pack: builds first; default DIR dist/pack)
 *                                           prints the tarball paths as JSON: { library, cli }
 *   node scripts/pack.mjs --check-cli-manifest                            (packages/cli's prepack guard)
 *
 * In the repository, packages/cli depends on `@acpkit/sdk` as `file:../..` (npm workspaces have no `workspace:`
 * protocol, and the library is the root package, not a workspace); a tarball must name a version instead. So the
 * CLI package is packed from a staged copy whose `@acpkit/sdk` dependency is the library's exact version, and packing
 * packages/cli directly (npm pack / npm publish -w packages/cli) is refused with this command to use instead.
 * The build must be current (npm run pack builds first); npm's own scripts are not run again.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** What `npm pack --json` said of the last tarball packed, by path: `{ size, unpackedSize, entryCount }`. */
export const packInfo = new Map();

/** `npm pack` of `dir` into `out`; returns the tarball's path. */
function npmPack(dir, out) {
  const stdout = execFileSync(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", out], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const [info] = JSON.parse(stdout);
  const path = join(out, info.filename);
  packInfo.set(path, { size: info.size, unpackedSize: info.unpackedSize, entryCount: info.entryCount });
  return path;
}

/**
 * Packs both packages (or the library alone) into `out` (created if needed); returns `{ library, cli }` tarball paths.
 */
export function packAll(out, { libraryOnly = false } = {}) {
  mkdirSync(out, { recursive: true });
  const library = npmPack(root, out);
  if (libraryOnly) return { library };
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const stage = mkdtempSync(join(tmpdir(), "acpkit-cli-stage-"));
  try {
    cpSync(join(root, "packages/cli"), stage, { recursive: true, filter: (path) => !path.includes("node_modules") });
    const manifest = JSON.parse(readFileSync(join(stage, "package.json"), "utf8"));
    manifest.dependencies["@acpkit/sdk"] = version;
    delete manifest.scripts?.prepack;
    if (manifest.scripts && Object.keys(manifest.scripts).length === 0) delete manifest.scripts;
    writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    const cli = npmPack(stage, out);
    return { library, cli };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes("--check-cli-manifest")) {
    const manifest = JSON.parse(readFileSync("package.json", "utf8"));
    if (String(manifest.dependencies?.["@acpkit/sdk"] ?? "").startsWith("file:")) {
      process.stderr.write(
        `${manifest.name}: its @acpkit/sdk dependency is the workspace link ` +
          `"${manifest.dependencies["@acpkit/sdk"]}", which a tarball cannot carry.\n` +
          "Pack it from the repository root with `npm run pack` (it writes the library's version in its place).\n",
      );
      process.exit(1);
    }
  } else {
    const at = args.indexOf("--out");
    const out = resolve(at >= 0 ? args[at + 1] : join(root, "dist/pack"));
    process.stdout.write(
      `${JSON.stringify(packAll(out, { libraryOnly: args.includes("--library-only") }), null, 2)}\n`,
    );
  }
}
