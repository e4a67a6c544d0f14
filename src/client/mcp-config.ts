/**
 * MCP server configurations for `session/new`, `session/load` and `session/resume`, read from the JSON shape editors
 * use (Claude Desktop, Cursor, Zed, VS Code) and converted to ACP's `McpServer` objects. Pure: no I/O.
 *
 * Accepted shapes (the servers object may sit under `mcpServers`, `servers` (VS Code) or `context_servers` (Zed)):
 * - stdio: `{ "command": "npx", "args": [...], "env": { "KEY": "value" } }` (optional `"type": "stdio"`), or Zed's
 *   older `{ "command": { "path": "...", "args": [...], "env": {...} } }`;
 * - HTTP: `{ "type": "http", "url": "https://...", "headers": { "Authorization": "..." } }` (`streamable-http` and
 *   `streamableHttp` are read as `http`; a `url` without a `type` is `http`);
 * - SSE: `{ "type": "sse", "url": "...", "headers": {...} }`.
 * An entry with `"disabled": true` is left out. `env` and `headers` objects become `[{ name, value }]` arrays.
 *
 * See protocol docs: [MCP Servers](https://agentclientprotocol.com/protocol/session-setup#mcp-servers)
 */
import type { AgentCapabilities, EnvVariable, HttpHeader, McpServer } from "../protocol/index.js";

/** A configuration that cannot be read; `path` names the offending field (`mcpServers.github.args[1]`). */
export class McpConfigError extends Error {
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = "McpConfigError";
  }
}

/** Options of `parseMcpConfig`. */
export interface McpConfigOptions {
  /**
   * Resolves a stdio server's command (ACP wants an absolute path; editors' files often say `npx`). Return the
   * command unchanged when it cannot be resolved. Default: unchanged.
   */
  resolveCommand?: (command: string) => string;
}

const SERVER_KEYS = ["mcpServers", "servers", "context_servers"] as const;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * Parses an editor-shaped MCP configuration (the JSON text or the parsed value) into ACP `McpServer`s, in the
 * file's order. Throws a `McpConfigError` naming the field for anything it cannot read (invalid JSON, a server
 * without `command` or `url`, a non-string argument or environment value, an unknown `type`).
 */
export function parseMcpConfig(input: string | unknown, options: McpConfigOptions = {}): McpServer[] {
  let config: unknown = input;
  if (typeof input === "string") {
    try {
      config = JSON.parse(input);
    } catch (error) {
      throw new McpConfigError("(file)", `not valid JSON: ${(error as Error).message}`);
    }
  }
  if (!isObject(config))
    throw new McpConfigError("(file)", 'expected a JSON object such as {"mcpServers": {"name": {"command": "..."}}}');
  const key = SERVER_KEYS.find((candidate) => candidate in config);
  if (key === undefined)
    throw new McpConfigError("(file)", `no "mcpServers" object found (also accepted: "servers", "context_servers")`);
  const servers = config[key];
  if (!isObject(servers))
    throw new McpConfigError(key, "expected an object mapping server names to their configurations");
  const result: McpServer[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    const server = parseServer(`${key}.${name}`, name, entry, options);
    if (server !== undefined) result.push(server);
  }
  return result;
}

/** Parses one server entry (`path` is used in errors). Undefined for a disabled one. */
export function parseServer(
  path: string,
  name: string,
  entry: unknown,
  options: McpConfigOptions = {},
): McpServer | undefined {
  if (!isObject(entry)) throw new McpConfigError(path, "expected an object with a command (stdio) or a url (http/sse)");
  if (entry.disabled === true) return undefined;
  const type = entry.type ?? entry.transport;
  if (type !== undefined && typeof type !== "string") throw new McpConfigError(`${path}.type`, "expected a string");
  const kind = normalizeType(type, entry);
  if (kind === undefined)
    throw new McpConfigError(`${path}.type`, `unknown type ${JSON.stringify(type)}: use "stdio", "http" or "sse"`);
  if (kind === "stdio") {
    // Zed's older shape nests the command: { "command": { "path", "args", "env" } }.
    const source = isObject(entry.command) ? entry.command : entry;
    const base = isObject(entry.command) ? `${path}.command` : path;
    const commandKey = isObject(entry.command) ? "path" : "command";
    const command = source[commandKey];
    if (typeof command !== "string" || command === "")
      throw new McpConfigError(`${base}.${commandKey}`, "expected the server's command as a non-empty string");
    const args = source.args ?? [];
    if (!Array.isArray(args)) throw new McpConfigError(`${base}.args`, "expected an array of strings");
    args.forEach((arg, i) => {
      if (typeof arg !== "string")
        throw new McpConfigError(`${base}.args[${i}]`, `expected a string, got ${JSON.stringify(arg)}`);
    });
    const env = pairs(`${base}.env`, source.env);
    return { name, command: options.resolveCommand?.(command) ?? command, args: args as string[], env };
  }
  const url = entry.url ?? entry.serverUrl;
  if (typeof url !== "string" || url === "")
    throw new McpConfigError(`${path}.url`, "expected the server's URL as a non-empty string");
  if (!/^https?:\/\//i.test(url))
    throw new McpConfigError(`${path}.url`, `expected an http:// or https:// URL, got ${JSON.stringify(url)}`);
  const headers: HttpHeader[] = pairs(`${path}.headers`, entry.headers);
  return { type: kind, name, url, headers };
}

function normalizeType(type: string | undefined, entry: Json): "stdio" | "http" | "sse" | undefined {
  if (type === undefined)
    return entry.command !== undefined
      ? "stdio"
      : entry.url !== undefined || entry.serverUrl !== undefined
        ? "http"
        : "stdio";
  switch (type.toLowerCase()) {
    case "stdio":
      return "stdio";
    case "http":
    case "streamable-http":
    case "streamablehttp":
    case "streamable_http":
      return "http";
    case "sse":
      return "sse";
    default:
      return undefined;
  }
}

/** `{ KEY: "value" }` (or an already-converted `[{ name, value }]`) as ACP's `[{ name, value }]`. */
function pairs(path: string, value: unknown): EnvVariable[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    return value.map((item, i) => {
      if (!isObject(item) || typeof item.name !== "string" || typeof item.value !== "string") {
        throw new McpConfigError(`${path}[${i}]`, 'expected {"name": string, "value": string}');
      }
      return { name: item.name, value: item.value };
    });
  }
  if (!isObject(value)) throw new McpConfigError(path, 'expected an object such as {"KEY": "value"}');
  return Object.entries(value).map(([name, item]) => {
    if (typeof item !== "string")
      throw new McpConfigError(`${path}.${name}`, `expected a string value, got ${JSON.stringify(item)} (quote it)`);
    return { name, value: item };
  });
}

/**
 * Parses a server given on a command line as `NAME=COMMAND ARGS...` (stdio; `split` turns the command line into
 * argv) or `NAME=http(s)://URL` (http). Throws a `McpConfigError` for anything else.
 */
export function parseMcpFlag(
  flag: string,
  split: (commandLine: string) => string[],
  options: McpConfigOptions = {},
): McpServer {
  const eq = flag.indexOf("=");
  if (eq <= 0 || eq === flag.length - 1)
    throw new McpConfigError("--mcp", `expected NAME=COMMAND or NAME=URL, got ${JSON.stringify(flag)}`);
  const name = flag.slice(0, eq);
  const value = flag.slice(eq + 1);
  if (/^https?:\/\//i.test(value)) return { type: "http", name, url: value, headers: [] };
  const [command, ...args] = split(value);
  return { name, command: options.resolveCommand?.(command!) ?? command!, args, env: [] };
}

/** The servers the agent can take (stdio always; http and sse when `mcpCapabilities` says so), and the rest. */
export function supportedMcpServers(
  servers: readonly McpServer[],
  capabilities: AgentCapabilities | undefined,
): { supported: McpServer[]; unsupported: McpServer[] } {
  const supported: McpServer[] = [];
  const unsupported: McpServer[] = [];
  for (const server of servers) {
    const type = "type" in server ? server.type : "stdio";
    const ok =
      type === "stdio" ||
      (type === "http" && capabilities?.mcpCapabilities?.http === true) ||
      (type === "sse" && capabilities?.mcpCapabilities?.sse === true);
    (ok ? supported : unsupported).push(server);
  }
  return { supported, unsupported };
}
