import { AcpConnection, type AcpConnectionOptions } from "../acp/acp-connection.js";
import { bindHandlerObject } from "../acp/bind-handlers.js";
import { ClassFace } from "../acp/class-face.js";
import type { ProtocolFlavor } from "../acp/flavor.js";
import { stableFlavor } from "../acp/flavors.js";
import { RequestError, type SendRequestOptions, type Stream } from "../jsonrpc/index.js";
import { handled } from "../jsonrpc/handled.js";
import type * as schema from "../protocol/index.js";
import type * as unstable from "../protocol/unstable.js";
import type { Agent } from "../acp/agent-handler.js";
import { CLIENT_HANDLER_NAMES, type Client } from "../acp/client-handler.js";

/**
 * The client's end of a connection to an agent (1.x class API, a drop-in for `@agentclientprotocol/sdk`'s).
 * `toClient` builds your `Client`, whose methods answer the agent's requests; this object calls the agent.
 * `session/close` and `session/delete` of a session the agent no longer knows (-32002) count as done.
 */
export class ClientSideConnection
  extends ClassFace<unstable.AgentRequestMap, unstable.AgentNotificationMap>
  implements Agent
{
  /** The protocol this class speaks; the `@acpkit/sdk/unstable` entry's subclass speaks the unstable one. */
  static flavor: ProtocolFlavor = stableFlavor;
  /** The ACP core under this face: tap, peer capabilities, routes. */
  override readonly connection: AcpConnection;

  constructor(toClient: (agent: Agent) => Client, stream: Stream, options: AcpConnectionOptions = {}) {
    super();
    this.connection = new AcpConnection("client", stream, (new.target as typeof ClientSideConnection).flavor, options);
    bindHandlerObject(this.connection, toClient(this), CLIENT_HANDLER_NAMES);
  }

  initialize(params: schema.InitializeRequest): Promise<schema.InitializeResponse> {
    return this.connection.request("initialize", params);
  }

  newSession(params: schema.NewSessionRequest): Promise<schema.NewSessionResponse> {
    return this.connection.request("session/new", params);
  }

  loadSession(params: schema.LoadSessionRequest): Promise<schema.LoadSessionResponse> {
    return this.connection.request("session/load", params);
  }

  unstable_forkSession(params: unstable.ForkSessionRequest): Promise<unstable.ForkSessionResponse> {
    return this.connection.request("session/fork", params);
  }

  listSessions(params: schema.ListSessionsRequest): Promise<schema.ListSessionsResponse> {
    return this.connection.request("session/list", params);
  }

  deleteSession(params: schema.DeleteSessionRequest): Promise<schema.DeleteSessionResponse> {
    return sessionGoneIsDone(this.connection.request("session/delete", params));
  }

  resumeSession(params: schema.ResumeSessionRequest): Promise<schema.ResumeSessionResponse> {
    return this.connection.request("session/resume", params);
  }

  closeSession(params: schema.CloseSessionRequest): Promise<schema.CloseSessionResponse> {
    return sessionGoneIsDone(this.connection.request("session/close", params));
  }

  setSessionMode(params: schema.SetSessionModeRequest): Promise<schema.SetSessionModeResponse> {
    return this.connection.request("session/set_mode", params);
  }

  setSessionConfigOption(params: schema.SetSessionConfigOptionRequest): Promise<schema.SetSessionConfigOptionResponse> {
    return this.connection.request("session/set_config_option", params);
  }

  authenticate(params: schema.AuthenticateRequest): Promise<schema.AuthenticateResponse> {
    return this.connection.request("authenticate", params);
  }

  unstable_listProviders(params: unstable.ListProvidersRequest): Promise<unstable.ListProvidersResponse> {
    return this.connection.request("providers/list", params);
  }

  unstable_setProvider(params: unstable.SetProviderRequest): Promise<unstable.SetProviderResponse> {
    return this.connection.request("providers/set", params);
  }

  unstable_disableProvider(params: unstable.DisableProviderRequest): Promise<unstable.DisableProviderResponse> {
    return this.connection.request("providers/disable", params);
  }

  /** Archives a session (unstable `session/archive`; needs `sessionCapabilities.archive`). */
  unstable_archiveSession(params: unstable.ArchiveSessionRequest): Promise<unstable.ArchiveSessionResponse> {
    return this.connection.request("session/archive", params);
  }

  /** Unarchives a session (unstable `session/unarchive`; needs `sessionCapabilities.archive`). */
  unstable_unarchiveSession(params: unstable.UnarchiveSessionRequest): Promise<unstable.UnarchiveSessionResponse> {
    return this.connection.request("session/unarchive", params);
  }

  /** Sets a session's title (unstable `session/set_title`; needs `sessionCapabilities.title`). */
  unstable_setSessionTitle(params: unstable.SetSessionTitleRequest): Promise<unstable.SetSessionTitleResponse> {
    return this.connection.request("session/set_title", params);
  }

  /**
   * Asks for a session's status without side effects (unstable `session/status`; needs `sessionCapabilities.status`).
   */
  unstable_sessionStatus(params: unstable.SessionStatusRequest): Promise<unstable.SessionStatusResponse> {
    return this.connection.request("session/status", params);
  }

  /** Asks the agent's authentication state (unstable `auth/status`; needs `auth.status`). */
  unstable_authStatus(params: unstable.AuthStatusRequest = {}): Promise<unstable.AuthStatusResponse> {
    return this.connection.request("auth/status", params);
  }

  /** Sends an MCP-over-ACP notification to the agent (unstable `mcp/message`). */
  unstable_mcpMessage(params: unstable.MessageMcpNotification): Promise<void> {
    return this.connection.notify("mcp/message", params);
  }

  logout(params: schema.LogoutRequest): Promise<schema.LogoutResponse> {
    return this.connection.request("logout", params);
  }

  /** Sends a prompt; updates stream to `Client.sessionUpdate` and all arrive before this resolves. */
  prompt(params: schema.PromptRequest, options?: SendRequestOptions): Promise<schema.PromptResponse> {
    return this.connection.request("session/prompt", params, options);
  }

  /** Cancels the session's running prompt turn (`session/cancel`). */
  cancel(params: schema.CancelNotification): Promise<void> {
    return this.connection.notify("session/cancel", params);
  }

  /** The agent's capabilities from `initialize` (undefined before it). */
  get agentCapabilities(): schema.AgentCapabilities | undefined {
    return this.connection.peerCapabilities as schema.AgentCapabilities | undefined;
  }
}

function sessionGoneIsDone<T>(response: Promise<T>): Promise<T> {
  return handled(
    response.catch((error: unknown) => {
      if (error instanceof RequestError && error.code === -32002) return {} as T;
      throw error;
    }),
  );
}
