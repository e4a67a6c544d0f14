/**
 * Packs the two npm packages of this repository into publishable tarballs: `@acpkit/sdk` (the library, no runtime
 * dependency) and `@acpkit/cli` (the `acp` programs, depending on @acpkit/sdk, ws, pg and the MCP SDK).
 *
 *   node scripts/pack.mjs [--out DIR] [--library-only]   (npm run pack: builds first; default DIR dist/pack)
 *                                           prints the tarball paths as JSON: { library, cli }
 *   node scripts/pack.mjs --check-cli-manifest                            (packages/cli's prepack guard)
 *
 * Each package is packed from a staged copy whose manifest is the one a user installs:
 * - no `scripts` (the repository's build, test and prepare scripts need the sources: a `prepare` would make every
 *   install warn of install scripts), no `workspaces`, no `devDependencies`;
 * - `repository`, `homepage` and `bugs` (the CLI's with `directory: "packages/cli"`);
 * - the CLI's `@acpkit/sdk` dependency is the library's exact version: in the repository it is `file:../..` (npm
 *   workspaces have no `workspace:` protocol, and the library is the root package, not a workspace), which a
 *   tarball cannot carry; packing packages/cli directly (npm pack / npm publish -w packages/cli) is refused with
 *   this command to use instead;
 * - the LICENSE text, and a README whose relative links point into the repository at the version's tag (the
 *   registry's page has no files to link to).
 * The build must be current (npm run pack builds first); npm's own scripts are not run again.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** What `npm pack --json` said of the last tarball packed, by path: `{ size, unpackedSize, entryCount }`. */
export const packInfo = new Map();

/** Manifest fields a published package does not carry. */
const REPOSITORY_ONLY = ["scripts", "workspaces", "devDependencies"];

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

/** The repository's web address (from the root manifest's `repository`), without `.git`. */
function repositoryUrl(manifest) {
  const url = typeof manifest.repository === "string" ? manifest.repository : manifest.repository?.url;
  if (typeof url !== "string") throw new Error("package.json has no repository url: the packed READMEs link into it");
  return url.replace(/^git\+/, "").replace(/\.git$/, "");
}

/**
 * `readme` (the text of `from`, a path relative to the repository root) with every relative link made absolute:
 * into the repository at tag `v<version>` (`blob/` for files, `tree/` for folders).
 */
export function absoluteLinks(readme, from, repository, version) {
  return readme.replace(/\]\(([^)\s]+)\)/g, (whole, target) => {
    if (/^[a-z][a-z+.-]*:/i.test(target) || target.startsWith("#")) return whole;
    const [path, anchor] = target.split("#");
    const inRepo = posix.normalize(posix.join(posix.dirname(from), path)).replace(/\/$/, "");
    const kind = existsSync(join(root, inRepo)) && !/\.[\w]+$/.test(inRepo) ? "tree" : "blob";
    return `](${repository}/${kind}/v${version}/${inRepo}${anchor === undefined ? "" : `#${anchor}`})`;
  });
}

/** A published manifest: the repository-only fields removed, the repository's address and `extra` set. */
function publishedManifest(manifest, extra) {
  const out = { ...manifest, ...extra };
  for (const field of REPOSITORY_ONLY) delete out[field];
  return out;
}

function writeJson(path, value) {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Packs the library from a staged copy of what it publishes; returns the tarball's path. */
function packLibrary(out, manifest, repository) {
  const stage = mkdtempSync(join(tmpdir(), "acpkit-sdk-stage-"));
  try {
    for (const entry of ["dist/esm", "dist/src", "dist/cjs", "schema", "LICENSE"])
      cpSync(join(root, entry), join(stage, entry), { recursive: true });
    const readme = readFileSync(join(root, "README.md"), "utf8");
    writeFileSync(join(stage, "README.md"), absoluteLinks(readme, "README.md", repository, manifest.version));
    writeJson(join(stage, "package.json"), publishedManifest(manifest, {}));
    return npmPack(stage, out);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Packs the CLI from a staged copy whose `@acpkit/sdk` dependency is the library's exact version. */
function packCli(out, library, repository) {
  const stage = mkdtempSync(join(tmpdir(), "acpkit-cli-stage-"));
  try {
    const cli = join(root, "packages/cli");
    cpSync(cli, stage, { recursive: true, filter: (path) => !path.includes("node_modules") });
    cpSync(join(root, "LICENSE"), join(stage, "LICENSE"));
    const readme = readFileSync(join(cli, "README.md"), "utf8");
    writeFileSync(
      join(stage, "README.md"),
      absoluteLinks(readme, "packages/cli/README.md", repository, library.version),
    );
    const manifest = JSON.parse(readFileSync(join(cli, "package.json"), "utf8"));
    writeJson(
      join(stage, "package.json"),
      publishedManifest(manifest, {
        repository: { ...library.repository, directory: "packages/cli" },
        homepage: `${repository}/tree/main/packages/cli#readme`,
        bugs: library.bugs,
        dependencies: { ...manifest.dependencies, "@acpkit/sdk": library.version },
      }),
    );
    return npmPack(stage, out);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Packs both packages (or the library alone) into `out` (created if needed); returns `{ library, cli }` tarball paths.
 */
export function packAll(out, { libraryOnly = false } = {}) {
  mkdirSync(out, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const repository = repositoryUrl(manifest);
  const library = packLibrary(out, manifest, repository);
  if (libraryOnly) return { library };
  return { library, cli: packCli(out, manifest, repository) };
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
