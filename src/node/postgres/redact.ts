/**
 * Database credentials never reach a log or an error message. A `Redactor` knows the secrets of one configuration
 * (the password given as an option, the one inside the connection string, in URL or key=value form) and replaces
 * them, and any `scheme://user:password@` userinfo, with `***` in text and, in place, in errors (message, stack,
 * string properties such as Node's `input` of an invalid URL, `cause`, and the inner errors of an AggregateError).
 */

const MASK = "***";
/** `scheme://user:password@`: the password part, whatever the secret list says. */
const USERINFO = /([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)([^@/?#\s]+)@/gi;
/** `password=secret` in a libpq key=value string (quoted or not). */
const KEYWORD = /(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s]+)/gi;

export class Redactor {
  readonly #secrets: string[];

  constructor(secrets: Iterable<string | undefined>) {
    const unique = new Set<string>();
    for (const secret of secrets) {
      if (secret === undefined || secret.length === 0) continue;
      unique.add(secret);
      // The same secret as it appears in a URL.
      unique.add(encodeURIComponent(secret));
    }
    // Longest first, so that a secret containing another is masked whole.
    this.#secrets = [...unique].sort((a, b) => b.length - a.length);
  }

  /** `text` with every secret and URL password replaced by `***`. */
  text(text: string): string {
    let out = text.replace(USERINFO, `$1${MASK}@`).replace(KEYWORD, `$1${MASK}`);
    for (const secret of this.#secrets) out = out.split(secret).join(MASK);
    return out;
  }

  /**
   * Redacts `error` in place (so its class, `code` and other fields stay for classification) and returns it.
   * Non-errors are returned as they are, except strings, which are redacted.
   */
  error<T>(error: T): T {
    return this.#error(error, new Set()) as T;
  }

  #error(value: unknown, seen: Set<unknown>): unknown {
    if (typeof value === "string") return this.text(value);
    if (value === null || typeof value !== "object" || seen.has(value)) return value;
    seen.add(value);
    const record = value as Record<string, unknown>;
    for (const key of Object.getOwnPropertyNames(value)) {
      const current = record[key];
      try {
        if (typeof current === "string") {
          const redacted = this.text(current);
          if (redacted !== current) record[key] = redacted;
        } else if (key === "cause" || key === "errors") {
          if (Array.isArray(current)) for (const inner of current) this.#error(inner, seen);
          else this.#error(current, seen);
        }
      } catch {
        // A read-only property: leave it (the message and stack of an Error are writable).
      }
    }
    if (value instanceof Error) {
      // `message` and `stack` may be inherited accessors rather than own properties.
      const message = this.text(value.message);
      if (message !== value.message) value.message = message;
      if (typeof value.stack === "string") {
        const stack = this.text(value.stack);
        if (stack !== value.stack) value.stack = stack;
      }
    }
    return value;
  }
}

/**
 * How to name a database in a log line: `postgres://user@host:port/database` (never the password). Accepts a
 * connection string (URL or key=value) or the separate options.
 */
export function describeDatabase(options: {
  connectionString?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
  user?: string | undefined;
  database?: string | undefined;
}): string {
  const fromString = options.connectionString === undefined ? undefined : parseTarget(options.connectionString);
  const host = options.host ?? fromString?.host ?? "localhost";
  const port = options.port ?? fromString?.port ?? 5432;
  const user = options.user ?? fromString?.user;
  const database = options.database ?? fromString?.database ?? user ?? "";
  const where = host.startsWith("/") ? `[${host}]:${port}` : `${host}:${port}`;
  return `postgres://${user === undefined ? "" : `${user}@`}${where}/${database}`;
}

/** The password inside a connection string, URL or key=value form, if any. */
export function passwordOf(connectionString: string): string | undefined {
  const url = splitUrl(connectionString);
  if (url !== undefined) return url.password ?? url.query.get("password") ?? undefined;
  return keyValues(connectionString).password;
}

interface Target {
  host?: string | undefined;
  port?: number | undefined;
  user?: string | undefined;
  database?: string | undefined;
}

function parseTarget(connectionString: string): Target {
  const url = splitUrl(connectionString);
  if (url !== undefined) {
    const port = url.port ?? url.query.get("port") ?? undefined;
    return {
      host: url.host ?? url.query.get("host") ?? undefined,
      port: port === undefined ? undefined : Number(port),
      user: url.user ?? url.query.get("user") ?? undefined,
      database: url.database,
    };
  }
  const pairs = keyValues(connectionString);
  return {
    host: pairs.host,
    port: pairs.port === undefined ? undefined : Number(pairs.port),
    user: pairs.user,
    database: pairs.dbname,
  };
}

/**
 * A `postgres://` URL taken apart by hand: `new URL` refuses what libpq and `pg` accept (an empty host before a
 * `?host=/socket/dir`, several hosts).
 */
function splitUrl(text: string):
  | {
      user?: string | undefined;
      password?: string | undefined;
      host?: string | undefined;
      port?: string | undefined;
      database?: string | undefined;
      query: URLSearchParams;
    }
  | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/(?:([^:@/?#]*)(?::([^@/?#]*))?@)?([^/?#]*)(?:\/([^?#]*))?(?:\?([^#]*))?/i.exec(
    text,
  );
  if (match === null) return undefined;
  const [, user, password, hostPort = "", path, query = ""] = match;
  const hostMatch = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(hostPort);
  const decode = (part: string | undefined) => {
    if (part === undefined || part === "") return undefined;
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  return {
    user: decode(user),
    password: password === undefined ? undefined : (decode(password) ?? ""),
    host: decode(hostMatch?.[1]),
    port: hostMatch?.[2] === "" ? undefined : hostMatch?.[2],
    database: decode(path),
    query: new URLSearchParams(query),
  };
}

/** libpq's `key=value key='quoted value'` form. */
function keyValues(text: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const match of text.matchAll(/(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s]+)/g)) {
    const raw = match[2]!;
    pairs[match[1]!] = raw.startsWith("'") ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw;
  }
  return pairs;
}
