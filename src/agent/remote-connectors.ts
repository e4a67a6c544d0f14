/**
 * Connectors that put the agents acpkit builds behind a remote server (`AcpServer`, `acp serve`'s library face):
 * one 1.x `AgentSideConnection` per client connection, or one agent toolkit agent per connection over a shared
 * session store (so a client can `session/load` on a new connection what it created on another).
 *
 * A 2.x `agent()` app needs no connector: it is one already (`new AcpServer({ agent: app })`).
 */
import type { AcpConnectionOptions } from "../acp/acp-connection.js";
import type { Agent } from "../acp/agent-handler.js";
import type { Stream } from "../jsonrpc/link.js";
import type { AgentConnector } from "../acp/agent-connector.js";
import { AgentSideConnection } from "./agent-side-connection.js";
import { toolkitAgent, type ToolkitAgentOptions } from "./toolkit/toolkit-agent.js";

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

/**
 * A connector making one `toolkitAgent` per client connection. `options` are shared by every connection (give
 * it a persistent `store`, such as `FileSessionStore` from `@acpkit/sdk/node`, for sessions that outlive connections),
 * or built per connection by a function.
 */
export function toolkitAgentConnector<S = unknown>(
  options: ToolkitAgentOptions<S> | ((connection: AgentSideConnection) => ToolkitAgentOptions<S>),
  connectorOptions: ClassAgentConnectorOptions = {},
): AgentConnector {
  return classAgentConnector(
    (connection) => toolkitAgent(connection, typeof options === "function" ? options(connection) : options),
    connectorOptions,
  );
}
