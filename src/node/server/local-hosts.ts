/**
 * Which Host header values a server bound to an address should answer to (the DNS-rebinding allow-list): the
 * loopback names, the bound address, and for a wildcard bind every address of this machine and its host name.
 */
import { isIP } from "node:net";
import { hostname, networkInterfaces } from "node:os";
import { isLoopbackAddress } from "../../remote/server/access.js";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1", "[::1]", "*.localhost"];

/** Whether a bind address (or name) is loopback: `localhost`, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare.endsWith(".localhost") || isLoopbackAddress(bare);
}

/** Whether a bind address is a wildcard (every interface). */
export function isWildcardHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare === "0.0.0.0" || bare === "::" || bare === "";
}

/** A host for a URL: IPv6 addresses in brackets. */
export function formatHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** The allow-list for a non-loopback bind: loopback names, the address (or, for a wildcard, all of this machine's). */
export function defaultAllowedHosts(host: string): string[] {
  const names = new Set(LOOPBACK_NAMES);
  const add = (value: string) => {
    const lower = value.toLowerCase();
    names.add(lower);
    if (isIP(lower) === 6) names.add(`[${lower}]`);
  };
  if (isWildcardHost(host)) {
    for (const list of Object.values(networkInterfaces())) for (const entry of list ?? []) add(entry.address);
    add(hostname());
  } else {
    add(host.replace(/^\[|\]$/g, ""));
  }
  return [...names];
}
