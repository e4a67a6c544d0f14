/**
 * Optional peer dependencies, loaded where a feature needs them: `acpkit` itself installs with no runtime
 * dependency, and the features built on a well-kept library (WebSocket with `ws`, MCP servers with the official MCP
 * SDK) load it on first use. When it is missing, the error says which package to install, and nothing else breaks:
 * a stdio agent or client never loads either.
 */
import { createRequire } from "node:module";
import { LocalError } from "../jsonrpc/local-errors.js";

/** An optional peer dependency, and what needs it. */
export interface OptionalPeer {
  /** The npm package name, e.g. `ws`. */
  readonly name: string;
  /** The version range to install, e.g. `8` (`npm install ws@8`). */
  readonly range: string;
  /** What needs it, as the start of a sentence: "WebSocket support". */
  readonly feature: string;
}

/** `ws`: WebSocket clients (`connectRemote` to a `ws(s)://` URL) and servers (`listenAcp`). */
export const WS_PEER: OptionalPeer = { name: "ws", range: "8", feature: "WebSocket support" };

/** The official MCP TypeScript SDK: connecting agent sessions to MCP servers (`createMcpConnector`). */
export const MCP_SDK_PEER: OptionalPeer = {
  name: "@modelcontextprotocol/sdk",
  range: "1",
  feature: "MCP server support",
};

/** `pg` (node-postgres): the PostgreSQL cluster backend and session store (`src/node/postgres`). */
export const PG_PEER: OptionalPeer = { name: "pg", range: "8", feature: "PostgreSQL support" };

/**
 * A feature needs an optional peer dependency that is not installed. A local error: install the package named in
 * `packageName` (the message gives the command), or use the `acp` programs from `@acpkit/cli`, which bring it.
 */
export class OptionalDependencyMissingError extends LocalError {
  readonly packageName: string;
  readonly feature: string;

  constructor(peer: OptionalPeer, cause?: unknown) {
    super(
      "dependency_missing",
      `acpkit: ${peer.feature} needs the '${peer.name}' package: npm install ${peer.name}@${peer.range}`,
      { cause },
    );
    this.name = "OptionalDependencyMissingError";
    this.packageName = peer.name;
    this.feature = peer.feature;
  }
}

/**
 * Imports `specifier` (the peer itself or one of its subpaths) on first use. Rejects with
 * `OptionalDependencyMissingError` when the peer is not installed; any other failure (a broken install, an error
 * inside the module) is passed on as it is.
 */
export async function importOptional<T>(peer: OptionalPeer, specifier: string = peer.name): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    throw isMissing(error, peer) ? new OptionalDependencyMissingError(peer, error) : error;
  }
}

const requireHere = createRequire(import.meta.url);

/** `importOptional`, synchronously (for a constructor that cannot wait): the peer's CommonJS entry. */
export function requireOptional<T>(peer: OptionalPeer, specifier: string = peer.name): T {
  try {
    return requireHere(specifier) as T;
  } catch (error) {
    throw isMissing(error, peer) ? new OptionalDependencyMissingError(peer, error) : error;
  }
}

/** Whether `error` says that the peer itself cannot be found (not one of its own dependencies). */
function isMissing(error: unknown, peer: OptionalPeer): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  const message = error instanceof Error ? error.message : "";
  return message.includes(`'${peer.name}'`) || message.includes(`'${peer.name}/`) || message.includes(`"${peer.name}"`);
}
