/**
 * What a protocol v2 client uses to call the agent: typed `request` and `notify` by method name, and
 * `buildSession`. `initialize` starts the connection's lifecycle (and may be repeated before any other request);
 * every other call waits until the connection is initialized; closing or deleting a session that is already gone
 * (-32002) resolves with an empty result.
 */
import { LocalError, RequestError, isRecord, type JsonRpcId, type SendRequestOptions } from "../../jsonrpc/index.js";
import { handled } from "../../jsonrpc/handled.js";
import type { AcpConnection } from "../../acp/acp-connection.js";
import type {
  MethodOf,
  NotificationParamsOf,
  ProtocolTypes,
  RequestParamsOf,
  RequestResultOf,
} from "../../acp/app-types.js";
import { ACP_CONNECTION } from "../../acp/connect.js";
import { V2, parsedOrCopy } from "../../acp/v2/admission.js";
import type { UnrecognizedMethod, V2ExtensionMethod, V2Protocol } from "../../acp/v2/app-types.js";
import type { V2ConnectionState } from "../../acp/v2/connection-state.js";
import { assertOutgoingDirection } from "../../acp/v2/direction.js";
import type { NewSessionRequest } from "../../protocol/v2.js";
import { SessionBuilder, type SessionRequester } from "./active-session.js";
import type { V2ActiveSessionFeed } from "./active-session-feed.js";

type AgentRequests<P extends ProtocolTypes> = P["agentRequests"];
type AgentNotifications<P extends ProtocolTypes> = P["agentNotifications"];

/** Requests that succeed when the session is already gone. */
const IDEMPOTENT_SESSION_METHODS = new Set(["session/close", "session/delete"]);

/** A v2 client connection's state: the lifecycle, plus the session feed. */
export interface V2ClientState extends V2ConnectionState {
  readonly feed: V2ActiveSessionFeed;
}

export class ClientContext<P extends ProtocolTypes = V2Protocol, Init = unknown> implements SessionRequester {
  /** @internal Contexts come from the app: handler contexts, `connect().agent`, `connectWith`. */
  constructor(
    private readonly state: V2ClientState,
    private readonly currentRequestId?: JsonRpcId,
  ) {}

  /** The validated `initialize` exchange, once the connection is initialized. */
  get initialized(): Promise<Init> {
    return this.state.init.initialized as Promise<Init>;
  }

  /** JSON-RPC id of the request being handled; undefined outside request handlers. */
  get requestId(): JsonRpcId | undefined {
    return this.currentRequestId;
  }

  /** The connection behind this context (for acpkit toolkits). */
  get [ACP_CONNECTION](): AcpConnection {
    return this.state.acp;
  }

  /** @internal The session feed (for `SessionBuilder`). */
  get feed(): V2ActiveSessionFeed {
    return this.state.feed;
  }

  /** Starts building a session: a `cwd` (absolute), or a whole `session/new` request. */
  buildSession(cwd: string): SessionBuilder;
  buildSession(request: NewSessionRequest): SessionBuilder;
  buildSession(cwdOrRequest: string | NewSessionRequest): SessionBuilder {
    return new SessionBuilder(
      this,
      typeof cwdOrRequest === "string" ? { cwd: cwdOrRequest, mcpServers: [] } : cwdOrRequest,
    );
  }

  /**
   * Sends a request to the agent. `initialize` is sent at once (with `protocolVersion: 2`) and throws -32600
   * synchronously when it may not be (in progress, or repeated after other requests); other requests wait until
   * the connection is initialized and reject with -32600 if it is not being initialized.
   */
  request<M extends MethodOf<AgentRequests<P>>>(
    method: M,
    params: RequestParamsOf<AgentRequests<P>, M>,
    options?: SendRequestOptions,
  ): Promise<RequestResultOf<AgentRequests<P>, M>>;
  request<Response = unknown, Params = unknown>(
    method: V2ExtensionMethod,
    params?: Params,
    options?: SendRequestOptions,
  ): Promise<Response>;
  request<Response = unknown, Params = unknown, const M extends string = never>(
    method: UnrecognizedMethod<M, P>,
    params?: Params,
    options?: SendRequestOptions,
  ): Promise<Response>;
  request(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown> {
    assertOutgoingDirection(this.state.acp.flavor, "client", "request", method);
    if (method === "initialize") return this.initialize(params, options);
    const { acp, init } = this.state;
    init.noteRequest();
    const send = (): Promise<unknown> => {
      const response = acp.request(method, params, options);
      if (!IDEMPOTENT_SESSION_METHODS.has(method)) return response;
      return handled(
        response.catch((error: unknown) => {
          if (error instanceof RequestError && error.code === -32002) return {};
          throw error;
        }),
      );
    };
    // Marked handled like every request promise: one nobody awaits does not crash the program when it fails.
    if (init.phase === "initialized") return send();
    return handled(init.whenInitialized(method, send));
  }

  /** Sends a notification to the agent, once the connection is initialized. */
  notify<M extends MethodOf<AgentNotifications<P>>>(
    method: M,
    params: NotificationParamsOf<AgentNotifications<P>, M>,
  ): Promise<void>;
  notify(method: "$/cancel_request", params: { requestId: JsonRpcId }): Promise<void>;
  notify<Params = unknown>(method: V2ExtensionMethod, params?: Params): Promise<void>;
  notify<Params = unknown, const M extends string = never>(
    method: UnrecognizedMethod<M, P>,
    params?: Params,
  ): Promise<void>;
  notify(method: string, params?: unknown): Promise<void> {
    assertOutgoingDirection(this.state.acp.flavor, "client", "notification", method);
    const { acp, init } = this.state;
    if (init.phase === "initialized") return acp.notify(method, params);
    return handled(init.whenInitialized(method, () => acp.notify(method, params)));
  }

  /**
   * `initialize`: starts an attempt (synchronously refused when one may not start), sends it with
   * `protocolVersion: 2`. An error answer leaves the connection as it was (it may be sent again); an answer this
   * side cannot use (another protocol version) fails the connection and closes it with that error.
   */
  private initialize(params: unknown, options?: SendRequestOptions): Promise<unknown> {
    const { acp, init } = this.state;
    const outgoing = { ...(isRecord(params) ? params : {}), protocolVersion: V2 };
    // The snapshot keeps the request as the agent reads it (defaults filled in); what is sent is `outgoing`.
    init.begin(parsedOrCopy(acp.flavor.schemas.InitializeRequest, outgoing));
    const response = acp.request("initialize", outgoing, options);
    response.catch((error: unknown) => {
      if (init.phase !== "initializing") return;
      if (error instanceof LocalError && (error.kind === "protocol_version" || error.kind === "invalid_response")) {
        init.fail(error);
        if ((init.phase as string) === "failed") acp.close(error);
      } else {
        // An error answer or a timeout: nothing was agreed, `initialize` may be sent again. (A closed connection
        // fails the lifecycle through its signal.)
        init.failAttempt();
      }
    });
    return response;
  }
}
