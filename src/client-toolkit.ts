/**
 * `acpkit/client-toolkit`: what a client author builds on beyond the wire. A session model folded from
 * `session/update` and permission policies. Browser-safe; the file system host, terminal host and agent launcher
 * are in `acpkit/node`.
 */
export * from "./client/toolkit/index.js";
export {
  checkProtocolVersion,
  SPOKEN_PROTOCOL_VERSIONS,
  type ProtocolVersionVerdict,
} from "./client/protocol-version.js";
