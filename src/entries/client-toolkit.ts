/**
 * `@acpkit/sdk/client-toolkit`: what a client author builds on beyond the wire. A session model folded from
 * `session/update` and permission policies. Browser-safe; the file system host, terminal host and agent launcher
 * are in `@acpkit/sdk/node`.
 */
export * from "../client/toolkit/index.js";
export {
  checkProtocolVersion,
  SPOKEN_PROTOCOL_VERSIONS,
  type ProtocolVersionVerdict,
} from "../client/protocol-version.js";
export {
  AUTH_REQUIRED_CODE,
  authMethodKind,
  authMethodType,
  chooseAuthMethod,
  describeAuthMethods,
  isAuthRequired,
  type AuthChoice,
  type AuthChoiceInput,
} from "../client/auth.js";
export {
  McpConfigError,
  parseMcpConfig,
  parseMcpFlag,
  supportedMcpServers,
  type McpConfigOptions,
} from "../client/mcp-config.js";
