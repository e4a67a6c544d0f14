/**
 * Connectors that put the agents acpkit builds behind a remote server (`AcpServer`, `acp serve`'s library face):
 * one 1.x `AgentSideConnection` per client connection. (One agent toolkit agent per connection over a shared session
 * store is `toolkitAgentConnector`, in ./toolkit/connector.ts.)
 *
 * A 2.x `agent()` app needs no connector: it is one already (`new AcpServer({ agent: app })`).
 */
import type { AcpConnectionOptions } from "../acp/acp-connection.js";
import type { Agent } from "../acp/agent-handler.js";
import type { Stream } from "../jsonrpc/link.js";
import type { AgentConnector } from "../acp/agent-connector.js";
import { AgentSideConnection } from "./agent-side-connection.js";

/** Options of `classAgentConnector`. */
export interface ClassAgentConnectorOptions extends AcpConnectionOptions {
  /** The class to instantiate: `AgentSideConnection` (default) or `@acpkit/sdk/unstable`'s. */
  connectionClass?: typeof AgentSideConnection;
}

/**
 * A connector making one `AgentSideConnection` per client connection, with `toAgent` building its `Agent`, as
 * `new AgentSideConnection(toAgent, stream)` does on stdio.
 */
export function classAgentConnector(
  toAgent: (connection: AgentSideConnection) => Agent,
  options: ClassAgentConnectorOptions = {},
): AgentConnector {
  const { connectionClass = AgentSideConnection, ...connectionOptions } = options;
  return {
    connect(stream: Stream) {
      const connection = new connectionClass(toAgent, stream, connectionOptions);
      return { closed: connection.closed };
    },
  };
}
