/**
 * `@acpkit/sdk/experimental/server`: a drop-in for `@agentclientprotocol/sdk/experimental/server` (2.4.0). Same
 * exports; `AcpServer` also takes acpkit's options (token, allowed hosts and origins, limits, health path, response
 * headers, connection events). See docs/remote-agents.md.
 */
export {
  AcpServer,
  type AcpServerOptions,
  type AgentFactory,
  type ConnectionLimits,
  type HandleRequestOptions,
  type PrepareWebSocketUpgradeOptions,
  type PreparedWebSocketUpgrade,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_BUFFERED_SESSION_STREAMS,
  DEFAULT_MAX_ID_LENGTH,
  DEFAULT_MAX_OUTPUT_STALL_MS,
} from "../../remote/server/index.js";

// The official backend SPI's shape (its `httpBackend` option; experimental upstream), as types only: the values of
// this entry stay exactly the official 2.4.0's.
// acpkit's shared sessions (`sharedSessions` option, `AcpServer.sharedSessions()`), types only.
export type { QueueSnapshot, SharedSessionSummary } from "../../remote/server/index.js";

export type {
  AcpHttpAcceptResult,
  AcpHttpBackend,
  AcpHttpLeaseResult,
  AcpHttpOutboundLease,
  AcpHttpResponseRoute,
} from "../../remote/server/index.js";

import type { AgentSideConnection } from "../../agent/agent-side-connection.js";
import type { Agent } from "../../acp/agent-handler.js";
/**
 * 1.9.0's factory type for `createLegacyAgent`. The name is exported so 1.9.0 code compiles; `AcpServer` refuses
 * `createLegacyAgent` at run time (2.4.0 removed it), saying to use `agent` or `createAgent` (see MIGRATING.md).
 */
export type LegacyAgentFactory = (conn: AgentSideConnection) => Agent;
