/**
 * Cookies for ACP's remote transports. The transport RFD: clients MUST accept, store and return cookies set by
 * the server on every HTTP-based transport (Streamable HTTP and the WebSocket upgrade), for the duration of the
 * connection, so servers can rely on them for affinity (sticky sessions behind a load balancer).
 *
 * `MemoryAcpCookieStore` keeps the basics of RFC 6265: name and value, `Max-Age` and `Expires` (zero, negative
 * or past values delete the cookie; a later expiry is honoured), the latest `Set-Cookie` for a name wins.
 * It ignores `Domain`, `Path`, `Secure`, `HttpOnly` and `SameSite`: a store serves one ACP endpoint, so every
 * cookie it holds goes back to that endpoint. It is not a browser cookie jar and not for credentials.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (cookie support)
 */

/** Where a transport keeps cookies: same shape as the official SDK's `AcpCookieStore`. */
export interface AcpCookieStore {
  /** Stores the cookies of a response's `Set-Cookie` headers. */
  store(headers: Headers): void;
  /** Adds the stored cookies to an outgoing request's `Cookie` header (cookies already there win). */
  apply(headers: Headers): void;
  /** Forgets every cookie. */
  clear(): void;
}

/** Options of `MemoryAcpCookieStore`. */
export interface MemoryAcpCookieStoreOptions {
  /** The clock, in ms since the epoch (for tests). Default `Date.now`. */
  now?: () => number;
}

interface StoredCookie {
  value: string;
  /** When it expires, in ms since the epoch; undefined: at the end of the store's life. */
  expires: number | undefined;
}

/** RFC 6265 cookie-name: an RFC 2616 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** An in-memory `AcpCookieStore`; see the file comment for what it honours. */
export class MemoryAcpCookieStore implements AcpCookieStore {
  readonly #cookies = new Map<string, StoredCookie>();
  readonly #now: () => number;

  constructor(options: MemoryAcpCookieStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** How many live cookies the store holds. */
  get size(): number {
    this.#dropExpired();
    return this.#cookies.size;
  }

  store(headers: Headers): void {
    for (const line of setCookieLines(headers)) {
      const cookie = parseSetCookie(line, this.#now());
      if (cookie === undefined) continue;
      if (cookie.expires !== undefined && cookie.expires <= this.#now()) this.#cookies.delete(cookie.name);
      else this.#cookies.set(cookie.name, { value: cookie.value, expires: cookie.expires });
    }
  }

  apply(headers: Headers): void {
    this.#dropExpired();
    if (this.#cookies.size === 0) return;
    const pairs = new Map<string, string>();
    for (const [name, cookie] of this.#cookies) pairs.set(name, cookie.value);
    for (const [name, value] of parseCookieHeader(headers.get("Cookie"))) pairs.set(name, value);
    headers.set("Cookie", [...pairs].map(([name, value]) => `${name}=${value}`).join("; "));
  }

  clear(): void {
    this.#cookies.clear();
  }

  /** The value of a live cookie (for tests and diagnostics). */
  get(name: string): string | undefined {
    this.#dropExpired();
    return this.#cookies.get(name)?.value;
  }

  #dropExpired(): void {
    const now = this.#now();
    for (const [name, cookie] of this.#cookies)
      if (cookie.expires !== undefined && cookie.expires <= now) this.#cookies.delete(name);
  }
}

/** Each `Set-Cookie` header line of `headers` (one per cookie). */
export function setCookieLines(headers: Headers): string[] {
  const getSetCookie = (headers as Headers & { getSetCookie?: () => string[] }).getSetCookie;
  if (typeof getSetCookie === "function") return getSetCookie.call(headers);
  const joined = headers.get("Set-Cookie");
  // Folded into one value: split at commas that start a new `name=` (the comma in an Expires date does not).
  return joined === null
    ? []
    : joined
        .split(/,(?=\s*[^;,\s]+=)/)
        .map((line) => line.trim())
        .filter((line) => line !== "");
}

/** Parses one `Set-Cookie` line (RFC 6265 §5.2); undefined when it is not a usable cookie. */
export function parseSetCookie(
  line: string,
  now: number,
): { name: string; value: string; expires: number | undefined } | undefined {
  const [pair = "", ...attributes] = line.split(";");
  const equals = pair.indexOf("=");
  if (equals <= 0) return undefined;
  const name = pair.slice(0, equals).trim();
  const value = pair.slice(equals + 1).trim();
  if (!TOKEN.test(name) || hasControlOrSemicolon(value)) return undefined;
  let maxAge: number | undefined;
  let expires: number | undefined;
  for (const attribute of attributes) {
    const at = attribute.indexOf("=");
    const key = (at === -1 ? attribute : attribute.slice(0, at)).trim().toLowerCase();
    const raw = at === -1 ? "" : attribute.slice(at + 1).trim();
    if (key === "max-age" && /^-?\d+$/.test(raw)) maxAge = Number(raw);
    else if (key === "expires") {
      const time = Date.parse(raw);
      if (!Number.isNaN(time)) expires = time;
    }
  }
  // Max-Age wins over Expires (RFC 6265 §5.3 step 3).
  if (maxAge !== undefined)
    return { name, value, expires: maxAge <= 0 ? Number.NEGATIVE_INFINITY : now + maxAge * 1000 };
  return { name, value, expires };
}

/** RFC 6265 cookie values carry no control characters and no ";". */
function hasControlOrSemicolon(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f || code === 0x3b) return true;
  }
  return false;
}

/** The `name=value` pairs of a `Cookie` request header. */
function parseCookieHeader(header: string | null): Array<[string, string]> {
  if (header === null) return [];
  const pairs: Array<[string, string]> = [];
  for (const part of header.split(";")) {
    const equals = part.indexOf("=");
    if (equals <= 0) continue;
    const name = part.slice(0, equals).trim();
    if (name !== "") pairs.push([name, part.slice(equals + 1).trim()]);
  }
  return pairs;
}
