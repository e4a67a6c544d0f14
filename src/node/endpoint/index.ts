/**
 * `node/endpoint/`: reaching an agent from Node, local or remote, the same way: `openAgentEndpoint` launches a
 * command line or connects to a URL, `connectRemote` opens a remote agent's stream with `ws` as the WebSocket
 * (optionally reconnecting). Programs (`acp exec`, `acp chat`) hold what they get alike.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
export { connectRemote, nodeWebSocket, type ConnectRemoteOptions } from "./connect-remote.js";
export {
  openAgentEndpoint,
  isAgentUrl,
  type AgentEndpoint,
  type AgentEndpointOptions,
  type AgentSpec,
} from "./agent-endpoint.js";
