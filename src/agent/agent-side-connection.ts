import { AcpConnection, type AcpConnectionOptions } from "../acp/acp-connection.js";
import { bindHandlerObject } from "../acp/bind-handlers.js";
import type { ProtocolFlavor } from "../acp/flavor.js";
import { stableFlavor } from "../acp/flavors.js";
import type { SendRequestOptions, Stream, TapListener } from "../jsonrpc/index.js";
import type * as schema from "../protocol/index.js";
import { AGENT_HANDLER_NAMES, type Agent } from "../acp/agent-handler.js";
import { createTerminalHandle, type TerminalHandle } from "./terminal-handle.js";

/**
 * The agent's end of a connection to a client (1.x class API, a drop-in for `@agentclientprotocol/sdk`'s).
 * `toAgent` builds your `Agent` from this connection; its methods answer the client's requests. Use this object
 * to call the client: stream updates, ask permission, read and write files, run terminals.
 *
 * Requests other than `initialize` are refused (-32600) until `initialize` succeeded. Everything sent is checked
 * against the schema (see `validateOutgoing`); everything received is validated, and invalid params get -32602.
 */
export class AgentSideConnection {
  /** The protocol this class speaks; the `acpkit/unstable` entry's subclass speaks the unstable one. */
  static flavor: ProtocolFlavor = stableFlavor;
  /** The ACP core under this face: tap, peer capabilities, routes. */
  readonly connection: AcpConnection;

  constructor(toAgent: (connection: AgentSideConnection) => Agent, stream: Stream, options: AcpConnectionOptions = {}) {
    this.connection = new AcpConnection("agent", stream, (new.target as typeof AgentSideConnection).flavor, options);
    this.connection.requireInitialize = true;
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

  /** Sends any request: typed for protocol methods, free-form for extension methods. */
  request<Response = unknown>(method: string, params?: unknown, options?: SendRequestOptions): Promise<Response> {
    return this.connection.request<Response>(method, params, options);
  }

  /** Sends any notification. */
  notify(method: string, params?: unknown): Promise<void> {
    return this.connection.notify(method, params);
  }

  /** Sends an extension request. */
  extMethod(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.connection.request(method, params);
  }

  /** Sends an extension notification. */
  extNotification(method: string, params: Record<string, unknown>): Promise<void> {
    return this.connection.notify(method, params);
  }

  /** The client's capabilities from `initialize` (undefined before it). */
  get clientCapabilities(): schema.ClientCapabilities | undefined {
    return this.connection.peerCapabilities as schema.ClientCapabilities | undefined;
  }

  /** Whether the client advertised what `method` needs. */
  peerSupports(method: string): boolean {
    return this.connection.peerSupports(method);
  }

  /** Sees every message in both directions; returns a function that stops it. */
  tap(listener: TapListener): () => void {
    return this.connection.tap(listener);
  }

  /** Closes the connection: pending requests reject with a `ConnectionClosedError` carrying `reason`. */
  close(reason?: unknown): void {
    this.connection.close(reason);
  }

  /** Aborted when the connection closes. */
  get signal(): AbortSignal {
    return this.connection.signal;
  }

  /** Resolves when the connection has closed. */
  get closed(): Promise<void> {
    return this.connection.closed;
  }
}
