/**
 * The shape a server asks of an agent it serves per connection (official names, from the SDK 2.4.0's root):
 * `connect(stream, options)` opens the agent on one connection's message stream. An `AgentApp` is one.
 * Defined once, beside the server that calls it.
 */
export type {
  AgentConnectOptions,
  AgentConnectionLifecycle,
  AgentConnector,
} from "../transports/remote-server/agent-connector.js";
