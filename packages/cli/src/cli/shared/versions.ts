/**
 * Versions the programs report: the `@acpkit/cli` package's own (`acp --version`) and that of the library it runs
 * on, `@acpkit/sdk` (trace headers), each read from its package.json.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

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

/** The version of the `@acpkit/sdk` this program resolves. */
export function libraryVersion(): string {
  try {
    return versionAt(createRequire(import.meta.url).resolve("@acpkit/sdk/package.json"));
  } catch {
    return "unknown";
  }
}
