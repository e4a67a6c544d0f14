/**
 * Access control for an ACP server, checked before anything reaches an agent: a bearer token (compared in constant
 * time; `Authorization: Bearer`, or the `acp.bearer.<base64url>` WebSocket subprotocol for browsers), a Host
 * allow-list against DNS rebinding, and an Origin check against cross-site use from a browser. As the MCP SDKs do for
 * local servers; the official ACP SDK checks none of these.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (authentication is layered on top
 * "via HTTP headers, query parameters, or WebSocket subprotocols")
 */
import { tokenFromSubprotocols } from "../http-protocol.js";
import { parseAuthority } from "./authority.js";

/** Who may use the server. */
export interface AccessOptions {
  /** The bearer token (or tokens) a client must present. Without one, any client that passes Host and Origin may connect. */
  readonly token?: string | readonly string[];
  /**
   * Host names (optionally with `:port`) the `Host` header may name. `"any"` turns the check off. Default `"auto"`:
   * on a loopback socket, the loopback names (`localhost`, `*.localhost`, `127.0.0.1`, `[::1]`) and the socket's
   * own address; on other sockets (or when the adapter does not say), any host.
   */
  readonly allowedHosts?: readonly string[] | "any" | "auto";
  /**
   * Origins (`scheme://host[:port]`) a browser page may call from, beyond the server's own origin. `"any"` turns the
   * check off. Requests without `Origin` (non-browser clients) are always allowed; `Origin: null` never is.
   */
  readonly allowedOrigins?: readonly string[] | "any";
}

/** What the adapter knows about the socket a request came on. */
export interface SocketInfo {
  readonly localAddress?: string;
  readonly localPort?: number;
  readonly remoteAddress?: string;
  readonly remotePort?: number;
}

/** An access decision: allowed, or refused with a status, a message for the client and extra headers. */
export type AccessDecision =
  | {
      ok: true;
      /** Allowed by a session's read-only share token: the session it may observe. */
      share?: string;
      /** Allowed by the server's token at this position of `AccessOptions.token` (see `credentialOf`). */
      token?: number;
    }
  | { ok: false; status: number; message: string; headers?: Record<string, string> };

const ALLOWED: AccessDecision = { ok: true };
const ALLOWED_BY_THE_TOKEN: AccessDecision = { ok: true, token: 0 };
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"];

/** Whether an IP address (v4, v6 or v4-mapped v6) is a loopback address. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "::1" || bare === "0:0:0:0:0:0:0:1") return true;
  const v4 = bare.startsWith("::ffff:") ? bare.slice(7) : bare;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * The host name of a `Host` header value (`name`, `name:port`, `[v6]`, `[v6]:port`), lower-cased, brackets removed;
 * undefined when the value is not a `host[:port]` (`parseAuthority`).
 */
export function hostnameOf(host: string): string | undefined {
  return parseAuthority(host.trim())?.hostname;
}

/** Compares two strings in time that depends only on `expected`'s length, not on where they differ. */
export function constantTimeEqual(given: string, expected: string): boolean {
  const encoder = new TextEncoder();
  const a = encoder.encode(given);
  const b = encoder.encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (i < a.length ? a[i]! : 0) ^ b[i]!;
  return diff === 0;
}

/** The checks of `AccessOptions`, ready to apply to requests. */
export class AccessPolicy {
  readonly #tokens: readonly string[];
  /** Each token's fingerprint, computed on first need. */
  readonly #fingerprints: Array<Promise<string> | undefined> = [];
  readonly #hosts: readonly string[] | "any" | "auto";
  readonly #origins: readonly string[] | "any";

  constructor(
    options: AccessOptions = {},
    /** The session a share token lets its bearer observe (shared sessions), if `token` is one. */
    private readonly shareTokenSession?: (token: string) => string | undefined,
  ) {
    const tokens =
      options.token === undefined ? [] : typeof options.token === "string" ? [options.token] : [...options.token];
    if (tokens.some((token) => token.length === 0)) throw new TypeError("a bearer token must not be empty");
    this.#tokens = tokens;
    const hosts = options.allowedHosts ?? "auto";
    this.#hosts = typeof hosts === "string" ? hosts : hosts.map((host) => host.trim().toLowerCase());
    const origins = options.allowedOrigins ?? [];
    if (origins === "any" && tokens.length === 0)
      throw new TypeError(
        'allowedOrigins "any" needs a token: without one, any web page the user opens could run the agent ' +
          "(and every command it can). Give a token, or list the origins you trust.",
      );
    this.#origins = typeof origins === "string" ? origins : origins.map(normalizeOrigin);
  }

  /**
   * The credential an allowed request presented, as a connection records it (a connection may then be used only with
   * the credential it was opened with): a fingerprint of the token (SHA-256, never the token itself, so a cluster's
   * database does not hold it); undefined when no token was needed or a share token was presented (share-token
   * connections are bound by their grant).
   */
  credentialOf(decision: AccessDecision): Promise<string> | undefined {
    if (!decision.ok || decision.token === undefined || decision.share !== undefined) return undefined;
    const index = decision.token;
    return (this.#fingerprints[index] ??= fingerprint(this.#tokens[index]!));
  }

  /** Whether clients must present a token. */
  get requiresToken(): boolean {
    return this.#tokens.length > 0;
  }

  /** Host, then Origin, then token: the first failing check decides. */
  check(request: Request, socket?: SocketInfo, subprotocols: readonly string[] = []): AccessDecision {
    const host = this.checkHost(request, socket);
    if (!host.ok) return host;
    const origin = this.checkOrigin(request);
    if (!origin.ok) return origin;
    return this.checkToken(request, subprotocols);
  }

  /**
   * 400 unless the `Host` header is `host[:port]` as RFC 3986 spells them (`parseAuthority`); then 403 unless it
   * names an allowed host (DNS rebinding defence).
   */
  checkHost(request: Request, socket?: SocketInfo): AccessDecision {
    const syntax = this.checkHostSyntax(request);
    if (!syntax.ok) return syntax;
    const host = hostOf(request)!;
    const parsed = parseAuthority(host)!;
    const allowed = this.#allowedHosts(socket);
    if (allowed === "any") return ALLOWED;
    const withPort = parsed.port === undefined ? parsed.host : `${parsed.host}:${parsed.port}`;
    const name = parsed.hostname;
    if (
      allowed.some(
        (entry) =>
          entry === withPort ||
          entry === parsed.host ||
          entry === name ||
          (entry === "*.localhost" && name.endsWith(".localhost")),
      )
    ) {
      return ALLOWED;
    }
    return {
      ok: false,
      status: 403,
      message:
        `Forbidden: the Host header "${host}" is not one this server answers to. ` +
        "Connect through an allowed name, or start the server with that host allowed (--allow-host / allowedHosts).",
    };
  }

  /** 400 unless the `Host` header is `host[:port]` as RFC 3986 spells them (checked before anything else). */
  checkHostSyntax(request: Request): AccessDecision {
    const host = hostOf(request);
    if (host !== undefined && parseAuthority(host) !== undefined) return ALLOWED;
    return {
      ok: false,
      status: 400,
      message:
        host === undefined
          ? "Bad Request: the request has no Host header. Send Host: <host>[:<port>] (HTTP/1.1 clients do)."
          : `Bad Request: the Host header ${JSON.stringify(host.slice(0, 200))} is not a host[:port] (RFC 3986). Send the server's host name or address, and its port.`,
    };
  }

  /** 403 for a browser request from a foreign origin; requests without `Origin` pass. */
  checkOrigin(request: Request): AccessDecision {
    const origin = request.headers.get("origin");
    if (origin === null || this.isAllowedOrigin(origin, request)) return ALLOWED;
    return {
      ok: false,
      status: 403,
      message: `Forbidden: requests from the web origin "${origin}" are not allowed. Allow it on the server (--allow-origin / allowedOrigins) if it is yours.`,
    };
  }

  /** Whether `origin` may call: the server's own origin (same host and port as `Host`), or one allowed explicitly. */
  isAllowedOrigin(origin: string, request: Request): boolean {
    if (origin === "null") return false;
    if (this.#origins === "any") return true;
    const normalized = normalizeOrigin(origin);
    if (this.#origins.includes(normalized)) return true;
    const host = request.headers.get("host") ?? safeUrlHost(request.url);
    return host !== undefined && safeUrlHost(normalized) === host.trim().toLowerCase();
  }

  /** Whether `origin` is allowed explicitly (a cross-origin caller that needs CORS headers). */
  isListedOrigin(origin: string): boolean {
    return this.#origins === "any" || this.#origins.includes(normalizeOrigin(origin));
  }

  /** 401 with `WWW-Authenticate: Bearer` unless a configured token is presented. */
  checkToken(request: Request, subprotocols: readonly string[] = []): AccessDecision {
    if (this.#tokens.length === 0) return ALLOWED;
    const header = request.headers.get("authorization");
    const match = header === null ? null : /^\s*bearer\s+(\S+)\s*$/i.exec(header);
    const given = match?.[1] ?? tokenFromSubprotocols(subprotocols);
    if (given !== undefined) {
      let matched: number | undefined;
      for (let i = 0; i < this.#tokens.length; i++) if (constantTimeEqual(given, this.#tokens[i]!)) matched ??= i;
      if (matched !== undefined) return this.#tokens.length === 1 ? ALLOWED_BY_THE_TOKEN : { ok: true, token: matched };
      const share = this.shareTokenSession?.(given);
      if (share !== undefined) return { ok: true, share };
    }
    return {
      ok: false,
      status: 401,
      message:
        given === undefined
          ? "Unauthorized: this server needs a bearer token. Send Authorization: Bearer <token> (browsers: the acp.bearer.<base64url token> WebSocket subprotocol)."
          : "Unauthorized: the bearer token is not valid for this server.",
      headers: {
        "WWW-Authenticate": given === undefined ? 'Bearer realm="acp"' : 'Bearer realm="acp", error="invalid_token"',
      },
    };
  }

  #allowedHosts(socket?: SocketInfo): readonly string[] | "any" {
    if (this.#hosts !== "auto") return this.#hosts;
    const local = socket?.localAddress;
    if (local === undefined || !isLoopbackAddress(local)) return "any";
    const own = local.startsWith("::ffff:") ? local.slice(7) : local;
    return [...LOOPBACK_NAMES, "[::1]", "*.localhost", own.toLowerCase()];
  }
}

function normalizeOrigin(origin: string): string {
  try {
    const url = new URL(origin.trim());
    return `${url.protocol}//${url.host}`.toLowerCase();
  } catch {
    return origin.trim().toLowerCase();
  }
}

/** The `Host` header; runtimes that build the Request themselves (fetch-style servers) carry it in the URL only. */
function hostOf(request: Request): string | undefined {
  return request.headers.get("host") ?? safeUrlHost(request.url);
}

function safeUrlHost(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

/** `token:` and the first 128 bits of the token's SHA-256, in hex. */
async function fingerprint(token: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  const hex = Array.from(new Uint8Array(digest).slice(0, 16), (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `token:${hex}`;
}
