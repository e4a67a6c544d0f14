/**
 * The settings a cluster's nodes share (`PostgresServerBackend`'s options, resolved): lease timing, how long ended
 * connections are kept, and the agent an adopting node starts.
 */
import type { AgentConnector } from "../../acp/agent-connector.js";
import type { ClusterNode } from "./cluster-node.js";

/** Default lease of a node on its connections: renewed every quarter of it; adopted once it expired. */
export const DEFAULT_LEASE_MS = 5000;
/** Default time an ended connection's rows (events for resumption included) are kept before they are swept. */
export const DEFAULT_RETAIN_ENDED_MS = 60_000;

export interface ClusterSettings {
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly retainEndedMs: number;
  /** The agent to start when adopting a connection; without it this node adopts nothing. */
  readonly connector: AgentConnector | undefined;
  /** A short name put before each node's random id (`acp-1-Xyz...`), for logs and metrics. */
  readonly nodeName: string | undefined;
  onNodeClosed?(node: ClusterNode): void;
}
