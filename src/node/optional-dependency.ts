/**
 * Optional peer dependencies, loaded where a feature needs them: `acpkit` itself installs with no runtime
 * dependency, and the features built on a well-kept library (WebSocket with `ws`, MCP servers with the official MCP
 * SDK) load it on first use. When it is missing, the error says which package to install, and nothing else breaks:
 * a stdio agent or client never loads either.
 */
import { createRequire } from "node:module";
import { LocalError } from "../jsonrpc/local-errors.js";

/** An optional peer dependency, and what needs it. */
export interface OptionalDependency {
  /** The npm package name, e.g. `ws`. */
  readonly name: string;
  /** The version range to install, e.g. `8` (`npm install ws@8`). */
  readonly range: string;
  /** What needs it, as the start of a sentence: "WebSocket support". */
  readonly feature: string;
}

/** `ws`: WebSocket clients (`connectRemote` to a `ws(s)://` URL) and servers (`listenAcp`). */
export const WS_DEPENDENCY: OptionalDependency = { name: "ws", range: "8", feature: "WebSocket support" };

/** The official MCP TypeScript SDK: connecting agent sessions to MCP servers (`createMcpConnector`). */
export const MCP_SDK_DEPENDENCY: OptionalDependency = {
  name: "@modelcontextprotocol/sdk",
  range: "1",
  feature: "MCP server support",
};

/** `pg` (node-postgres): the PostgreSQL cluster backend and session store (`src/node/postgres`). */
export const PG_DEPENDENCY: OptionalDependency = { name: "pg", range: "8", feature: "PostgreSQL support" };

/**
 * A feature needs an optional peer dependency that is not installed. A local error: install the package named in
 * `packageName` (the message gives the command), or use the `acp` programs from `@acpkit/cli`, which bring it.
 */
export class OptionalDependencyMissingError extends LocalError {
  readonly packageName: string;
  readonly feature: string;

  constructor(dependency: OptionalDependency, cause?: unknown) {
    super(
      "dependency_missing",
      `acpkit: ${dependency.feature} needs the '${dependency.name}' package: npm install ` +
        `${dependency.name}@${dependency.range}`,
      { cause },
    );
    this.name = "OptionalDependencyMissingError";
    this.packageName = dependency.name;
    this.feature = dependency.feature;
  }
}

/**
 * Imports `specifier` (the dependency itself or one of its subpaths) on first use. Rejects with
 * `OptionalDependencyMissingError` when the dependency is not installed; any other failure (a broken install, an error
 * inside the module) is passed on as it is.
 */
export async function importOptional<T>(
  dependency: OptionalDependency,
  specifier: string = dependency.name,
): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    throw isMissing(error, dependency) ? new OptionalDependencyMissingError(dependency, error) : error;
  }
}

const requireHere = createRequire(import.meta.url);

/** `importOptional`, synchronously (for a constructor that cannot wait): the dependency's CommonJS entry. */
export function requireOptional<T>(dependency: OptionalDependency, specifier: string = dependency.name): T {
  try {
    return requireHere(specifier) as T;
  } catch (error) {
    throw isMissing(error, dependency) ? new OptionalDependencyMissingError(dependency, error) : error;
  }
}

/** Whether `error` says that the dependency itself cannot be found (not one of its own dependencies). */
function isMissing(error: unknown, dependency: OptionalDependency): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  const message = error instanceof Error ? error.message : "";
  return (
    message.includes(`'${dependency.name}'`) ||
    message.includes(`'${dependency.name}/`) ||
    message.includes(`"${dependency.name}"`)
  );
}
