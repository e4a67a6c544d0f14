/**
 * What each switch of `acp serve` that weakens a default exposes, said on stderr when it starts, one line each: no
 * silent unsafe switch.
 */
import { isLoopbackHost } from "@acpkit/sdk/node";
import type { ServeOptions } from "./serve-options.js";

/**
 * Characters below which a token is noted as guessable: 22 random base64url characters hold 128 bits (a generated
 * token has 43, 256 bits).
 */
export const SHORT_TOKEN_CHARS = 22;

/**
 * The notes for `options` (empty when every default holds); `authority` is `host:port` as served, `token` the one
 * clients must send (undefined: none).
 */
export function insecureNotes(options: ServeOptions, authority: string, token: string | undefined): string[] {
  const notes: string[] = [];
  const hasToken = token !== undefined;
  if (token !== undefined && token.length < SHORT_TOKEN_CHARS)
    notes.push(
      `the token has ${token.length} characters: one that short can be guessed by whoever can reach ${authority} ` +
        `and try tokens; use ${SHORT_TOKEN_CHARS} or more random characters, or give none and acp serve makes one`,
    );
  const loopback = isLoopbackHost(options.host);
  if (options.insecureNoToken)
    notes.push(
      loopback
        ? `--insecure-no-token: no token; any process or user of this machine that can reach ${authority} can run the agent, and every command it can, as you`
        : `--insecure-no-token --allow-insecure: no token on ${options.host}; anyone on the network who can reach ${authority} can run the agent, and every command it can, as you`,
    );
  if (options.allowHosts === "any")
    notes.push(
      "--allow-host any: the Host check is off, so DNS rebinding is not stopped: a web page can reach this server through a name that points at it, and only the token stands in its way",
    );
  else if (options.allowHosts !== undefined && options.allowHosts.length > 0)
    notes.push(`--allow-host: also answering to ${options.allowHosts.join(", ")}`);
  if (options.allowOrigins === "any")
    notes.push("--allow-origin any: a page of any web site can call this server; only the token stands in its way");
  else if (options.allowOrigins.length > 0)
    notes.push(
      `--allow-origin: pages of ${options.allowOrigins.join(", ")} can call this server${hasToken ? " with the token" : ", without a token: they can run the agent as you"}`,
    );
  if (!loopback && options.cert === undefined)
    notes.push(
      `no TLS on ${options.host}: the token and everything the agent says cross the network in clear text; use --cert/--key or a TLS proxy`,
    );
  const stdioMcp = options.stdioMcp ?? (loopback ? "allow" : "refuse");
  if (stdioMcp === "allow" && !loopback)
    notes.push("--allow-stdio-mcp: clients may name stdio MCP servers, commands the agent runs on this machine as you");
  return notes;
}
