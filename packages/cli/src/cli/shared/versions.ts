/**
 * Versions the programs report: the `@acpkit/cli` package's own (`acp --version`) and that of the library it runs
 * on, `@acpkit/sdk` (trace headers), each read from its package.json.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

function versionAt(path: string | URL): string {
  try {
    return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/** `@acpkit/cli`'s version (from dist/src/cli/shared/ up to the package root). */
export function cliVersion(): string {
  return versionAt(new URL("../../../../package.json", import.meta.url));
}

/** The directory of the `@acpkit/sdk` this program resolves (from its own location, as its imports do). */
export function libraryLocation(): string | undefined {
  try {
    return dirname(createRequire(import.meta.url).resolve("@acpkit/sdk/package.json"));
  } catch {
    return undefined;
  }
}

/** The version of the `@acpkit/sdk` this program resolves. */
export function libraryVersion(): string {
  const location = libraryLocation();
  return location === undefined ? "unknown" : versionAt(join(location, "package.json"));
}

/**
 * What `acp --version` prints: this package's version, then the library's version and where it was found, so that
 * which `@acpkit/sdk` the programs run on is never a guess (a registry package of the same name, a stale link).
 */
export function versionReport(): string {
  const location = libraryLocation();
  return `@acpkit/cli ${cliVersion()}\n@acpkit/sdk ${libraryVersion()} ${location ?? "(not found)"}\n`;
}
