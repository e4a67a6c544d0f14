/**
 * The `Host` header parsed strictly, as RFC 9110 defines it: `uri-host [ ":" port ]`, where `uri-host` is RFC 3986's
 * `host` (an IP literal in brackets, an IPv4 address or a registered name). Anything else (a path, a fragment,
 * userinfo, text after the brackets of an IPv6 literal, a zone id, an empty host, a port that is not a number up to
 * 65535) is not a Host: the server answers 400. The allow-list then judges the parsed host. Browser-safe.
 *
 * Spec: RFC 9110 section 7.2 (Host), RFC 3986 section 3.2.2 (host) and 3.2.3 (port).
 */

/** A parsed `Host` header value. */
export interface Authority {
  /** The host as it appears in a URL, lower-cased: `example.com`, `127.0.0.1`, `[::1]`. */
  readonly host: string;
  /** The host name without brackets: `::1` for `[::1]`. */
  readonly hostname: string;
  /** The port, when one was given (an empty port, `host:`, counts as none). */
  readonly port: number | undefined;
}

// unreserved / pct-encoded / sub-delims (RFC 3986 section 2), nothing else.
const REG_NAME = /^(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})+$/;
const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HEX16 = /^[0-9a-f]{1,4}$/;

/** Whether `text` is an RFC 3986 `IPv6address` (no zone id, no brackets). */
export function isIpv6Address(text: string): boolean {
  let value = text.toLowerCase();
  let groups = 8;
  // An IPv4 tail counts for two groups.
  const lastColon = value.lastIndexOf(":");
  if (lastColon !== -1 && value.includes(".", lastColon)) {
    if (!IPV4.test(value.slice(lastColon + 1))) return false;
    value = `${value.slice(0, lastColon + 1)}0:0`;
  }
  const halves = value.split("::");
  if (halves.length > 2) return false;
  const parts = (half: string) => (half === "" ? [] : half.split(":"));
  if (halves.length === 1) {
    const all = parts(value);
    return all.length === groups && all.every((group) => HEX16.test(group));
  }
  const head = parts(halves[0]!);
  const tail = parts(halves[1]!);
  groups -= 1; // "::" stands for at least one group
  return head.length + tail.length <= groups && [...head, ...tail].every((group) => HEX16.test(group));
}

/** Parses a `Host` header value; undefined when it is not `host[:port]` as RFC 3986 spells them. */
export function parseAuthority(value: string): Authority | undefined {
  const text = value.toLowerCase();
  let host: string;
  let hostname: string;
  let rest: string;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close === -1) return undefined;
    hostname = text.slice(1, close);
    if (!isIpv6Address(hostname)) return undefined;
    host = `[${hostname}]`;
    rest = text.slice(close + 1);
  } else {
    const colon = text.indexOf(":");
    hostname = colon === -1 ? text : text.slice(0, colon);
    rest = colon === -1 ? "" : text.slice(colon);
    if (!REG_NAME.test(hostname)) return undefined;
    // A name made of digits and dots must be a whole IPv4 address (RFC 3986's first-match rule reads it as one).
    if (/^[\d.]+$/.test(hostname) && !IPV4.test(hostname)) return undefined;
    host = hostname;
  }
  if (rest === "" || rest === ":") return { host, hostname, port: undefined };
  if (!/^:\d{1,5}$/.test(rest)) return undefined;
  const port = Number(rest.slice(1));
  return port <= 65535 ? { host, hostname, port } : undefined;
}
