/**
 * `toolkitAgentConnector`: one agent toolkit agent per client connection of a remote server (`AcpServer`), over a
 * shared session store. Beside the toolkit rather than with `classAgentConnector` (../remote-connectors.ts), so that
 * the root entry, which exports only the latter, does not load the toolkit (issue 20, cold start).
 */
import type { AgentConnector } from "../../acp/agent-connector.js";
import type { AgentSideConnection } from "../agent-side-connection.js";
import { classAgentConnector, type ClassAgentConnectorOptions } from "../remote-connectors.js";
import { toolkitAgent, type ToolkitAgentOptions } from "./toolkit-agent.js";

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
