import { AcpConnection, type AcpConnectionOptions } from "../acp/acp-connection.js";
import { bindHandlerObject } from "../acp/bind-handlers.js";
import { ClassFace } from "../acp/class-face.js";
import type { ProtocolFlavor } from "../acp/flavor.js";
import { stableFlavor } from "../acp/flavors.js";
import type { Stream } from "../jsonrpc/index.js";
import type * as schema from "../protocol/index.js";
import type * as unstable from "../protocol/unstable.js";
import { AGENT_HANDLER_NAMES, type Agent } from "../acp/agent-handler.js";
import { createTerminalHandle, type TerminalHandle } from "./terminal-handle.js";

/**
 * The agent's end of a connection to a client (1.x class API, a drop-in for `@agentclientprotocol/sdk`'s).
 * `toAgent` builds your `Agent` from this connection; its methods answer the client's requests. Use this object
 * to call the client: stream updates, ask permission, read and write files, run terminals.
 *
 * As in 1.9.0, requests that arrive before `initialize` are served (no gate; the 2.x `agent()` app has one).
 * Everything received is validated (invalid params get -32602); what is sent is checked (see `validateOutgoing`).
 */
export class AgentSideConnection extends ClassFace<unstable.ClientRequestMap, unstable.ClientNotificationMap> {
  /** The protocol this class speaks; the `@acpkit/sdk/unstable` entry's subclass speaks the unstable one. */
  static flavor: ProtocolFlavor = stableFlavor;
  /** The ACP core under this face: tap, peer capabilities, routes. */
  override readonly connection: AcpConnection;

  constructor(toAgent: (connection: AgentSideConnection) => Agent, stream: Stream, options: AcpConnectionOptions = {}) {
    super();
    this.connection = new AcpConnection("agent", stream, (new.target as typeof AgentSideConnection).flavor, options);
    bindHandlerObject(this.connection, toAgent(this), AGENT_HANDLER_NAMES);
  }

  /** Sends a `session/update` notification (message chunks, tool calls, plans, ...). */
  sessionUpdate(params: schema.SessionNotification): Promise<void> {
    return this.connection.notify("session/update", params);
  }

  /** Asks the user for permission to run a tool call. */
  requestPermission(params: schema.RequestPermissionRequest): Promise<schema.RequestPermissionResponse> {
    return this.connection.request("session/request_permission", params);
  }

  /** Reads a text file through the client (needs `clientCapabilities.fs.readTextFile`). */
  readTextFile(params: schema.ReadTextFileRequest): Promise<schema.ReadTextFileResponse> {
    return this.connection.request("fs/read_text_file", params);
  }

  /** Writes a text file through the client (needs `clientCapabilities.fs.writeTextFile`). */
  writeTextFile(params: schema.WriteTextFileRequest): Promise<schema.WriteTextFileResponse> {
    return this.connection.request("fs/write_text_file", params);
  }

  /** Runs a command in a client terminal (needs `clientCapabilities.terminal`); release the handle when done. */
  async createTerminal(params: schema.CreateTerminalRequest): Promise<TerminalHandle> {
    const response = await this.connection.request<schema.CreateTerminalResponse>("terminal/create", params);
    return createTerminalHandle(this.connection, params.sessionId, response.terminalId);
  }

  /** Asks the user for structured input (needs `clientCapabilities.elicitation`). */
  createElicitation(params: schema.CreateElicitationRequest): Promise<schema.CreateElicitationResponse> {
    return this.connection.request("elicitation/create", params);
  }

  /** Tells the client a URL-mode elicitation finished. */
  completeElicitation(params: schema.CompleteElicitationNotification): Promise<void> {
    return this.connection.notify("elicitation/complete", params);
  }

  /** Tells the client the agent's authentication state changed (unstable `auth/status_update`). */
  unstable_authStatusUpdate(params: unstable.AuthStatusUpdateNotification): Promise<void> {
    return this.connection.notify("auth/status_update", params);
  }

  /** Sends an MCP request to a server the client provides (unstable `mcp/message`, MCP-over-ACP). */
  unstable_mcpMessage(params: unstable.MessageMcpRequest): Promise<unstable.MessageMcpResponse> {
    return this.connection.request("mcp/message", params);
  }

  /** The client's capabilities from `initialize` (undefined before it). */
  get clientCapabilities(): schema.ClientCapabilities | undefined {
    return this.connection.peerCapabilities as schema.ClientCapabilities | undefined;
  }
}
