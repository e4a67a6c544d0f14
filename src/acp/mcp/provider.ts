/**
 * The serving side of MCP-over-ACP: MCP servers registered on an ACP connection, answering the peer's
 * `mcp/message` requests by `serverId`. Usually a client serving tools to its agent.
 * See protocol docs: [MCP over ACP](https://agentclientprotocol.com/rfds/mcp-over-acp) (unstable).
 */
import type { MaybePromise } from "../../jsonrpc/index.js";
import { RequestError } from "../../jsonrpc/index.js";
import type { AcpConnection } from "../acp-connection.js";
import {
  connectionOf,
  freshId,
  isJsonObject,
  MCP_MESSAGE_METHOD,
  MCP_META_CLIENT_CAPABILITIES,
  MCP_META_CLIENT_INFO,
  MCP_META_PROTOCOL_VERSION,
  MCP_PROTOCOL_VERSION,
  McpBindingErrorCode,
  McpProtocolError,
  sendableOutcome,
  type HasConnectionContext,
  type McpMessageParams,
  type McpOutcome,
  type McpServerAcpDeclaration,
} from "./binding.js";

/** What a server handler gets for one inner MCP request. */
export type McpOperationContext = {
  /** The declared server receiving this request. */
  serverId: string;
  /** The caller's logical MCP request id, also the inner JSON-RPC id. */
  requestId: string;
  /** Inner MCP method, such as `tools/call` or `server/discover`. */
  method: string;
  /** Inner MCP params (`null` and omission are both `undefined`). */
  params: Record<string, unknown> | undefined;
  /** MCP protocol version from the inner `_meta`. */
  protocolVersion: string;
  /** MCP client capabilities from the inner `_meta`. */
  clientCapabilities: Record<string, unknown>;
  /** MCP client info from the inner `_meta`, if supplied. */
  clientInfo: unknown;
  /** Outer ACP metadata of the envelope, if any. */
  envelopeMeta: Record<string, unknown> | undefined;
  /** Aborted when the caller cancels, the registration is disposed, or the connection closes. */
  signal: AbortSignal;
  /** Sends an MCP notification scoped to this request; dropped once the request has completed. */
  notify(method: string, params?: Record<string, unknown> | null): Promise<void>;
};

/**
 * Answers one inner MCP request: return the outcome, or throw `McpProtocolError` for an inner MCP error. Anything
 * else thrown (a `RequestError` too) is answered as an outer binding failure (-33002), or -32800 once cancelled.
 */
export type McpRequestHandler = (context: McpOperationContext) => MaybePromise<McpOutcome>;

/** Registering an MCP server on an ACP connection. */
export type McpServerOptions = {
  /** Human-readable server name, used in the declaration. */
  name: string;
  /** Answers the requests addressed to this server. */
  handler: McpRequestHandler;
  /** Opaque server id (default: fresh and random). Registered at most once per connection, even after disposal. */
  serverId?: string;
  /** Concurrently active requests allowed for this server; more fail with -33000. Default 64. */
  maxActiveRequests?: number;
};

/** The parts of an `mcp/message` request handler's context the provider uses (v1 app contexts satisfy it). */
export type McpMessageRequestContext = {
  params: McpMessageParams;
  signal: AbortSignal;
  agent: HasConnectionContext;
};

/** A registered MCP server: its declaration goes into a session's `mcpServers`. */
export class McpServerRegistration {
  /** @internal Registrations come from `McpOverAcpProvider.registerServer`. */
  constructor(
    /** Human-readable server name. */
    readonly name: string,
    /** Opaque server id, unique for the connection's lifetime. */
    readonly serverId: string,
    private readonly release: () => Promise<void>,
  ) {}

  /** The ACP declaration to include in a session's `mcpServers`. */
  get declaration(): McpServerAcpDeclaration {
    return { type: "acp", name: this.name, serverId: this.serverId };
  }

  /** Removes the registration: later requests fail with -33001, active ones are cancelled and awaited. */
  dispose(): Promise<void> {
    return this.release();
  }

  /** `await using` support. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}

interface ServerEntry {
  readonly handler: McpRequestHandler;
  readonly maxActiveRequests: number;
  readonly active: Map<string, Promise<unknown>>;
  readonly disposed: AbortController;
}

interface ConnectionServers {
  readonly servers: Map<string, ServerEntry>;
  readonly usedIds: Set<string>;
}

/** An inner error answered instead of calling the handler (bad or missing MCP metadata). */
function innerInvalidParams(message: string): McpOutcome {
  return { error: { code: -32602, message: `Invalid params: ${message}` } };
}

/** A handler result that is not an outcome: reported as a binding failure with this message. */
class InvalidOutcome extends Error {}

/**
 * Serves MCP servers to an ACP peer over `mcp/message`. One provider per app: register `handleRequest` for
 * `mcp/message`, then register servers on each connection and put their declarations in sessions' `mcpServers`.
 *
 * ```ts
 * const mcp = new McpOverAcpProvider();
 * const app = client().onRequest(methods.client.mcp.message, mcp.handleRequest);
 * const connection = app.connect(stream);
 * const tools = mcp.registerServer(connection.agent, { name: "tools", handler });
 * await connection.agent.buildSession(cwd).withMcpServer(tools.declaration).start();
 * ```
 */
export class McpOverAcpProvider {
  private readonly connections = new WeakMap<AcpConnection, ConnectionServers>();

  /**
   * Registers an MCP server on the connection behind `context`; it serves at once, so publish its declaration
   * only afterwards. Throws when `serverId` was already used on this connection.
   */
  registerServer(context: HasConnectionContext, options: McpServerOptions): McpServerRegistration {
    const connection = connectionOf(context);
    let state = this.connections.get(connection);
    if (!state) this.connections.set(connection, (state = { servers: new Map(), usedIds: new Set() }));
    const serverId = options.serverId ?? freshId(options.name);
    if (state.usedIds.has(serverId))
      throw new Error(`MCP server id ${serverId} was already registered on this connection; pick another one`);
    const maxActiveRequests = options.maxActiveRequests ?? 64;
    if (!Number.isInteger(maxActiveRequests) || maxActiveRequests < 1)
      throw new RangeError(`maxActiveRequests must be a positive integer, not ${maxActiveRequests}`);
    state.usedIds.add(serverId);
    const entry: ServerEntry = {
      handler: options.handler,
      maxActiveRequests,
      active: new Map(),
      disposed: new AbortController(),
    };
    state.servers.set(serverId, entry);
    const servers = state.servers;
    return new McpServerRegistration(options.name, serverId, async () => {
      if (servers.get(serverId) !== entry) return;
      servers.delete(serverId);
      entry.disposed.abort(new Error(`MCP server ${serverId} registration was disposed`));
      await Promise.allSettled(entry.active.values());
    });
  }

  /**
   * Answers an incoming `mcp/message` request with the inner outcome: register it with
   * `onRequest(methods.client.mcp.message, provider.handleRequest)`. Binding failures reject with a `RequestError`
   * carrying the binding's outer code (-33001 unknown server, -32602 duplicate request id, -33000 over the limit,
   * -33002 handler failure, -32800 cancelled).
   */
  readonly handleRequest = async (context: McpMessageRequestContext): Promise<McpOutcome> => {
    const connection = connectionOf(context.agent);
    const { serverId, requestId } = context.params;
    const server = this.connections.get(connection)?.servers.get(serverId);
    if (!server)
      throw new RequestError(McpBindingErrorCode.serverUnavailable, "MCP server registration unavailable", {
        serverId,
      });
    if (server.active.has(requestId))
      throw RequestError.invalidParams({ serverId, requestId }, "duplicate active MCP request ID");
    if (server.active.size >= server.maxActiveRequests) {
      throw new RequestError(McpBindingErrorCode.resourceLimitExceeded, "MCP-over-ACP active request limit exceeded", {
        serverId,
      });
    }
    const signal = AbortSignal.any([context.signal, server.disposed.signal]);
    let done = false;
    const running = runHandler(server.handler, context.params, connection, signal, () => done);
    server.active.set(requestId, running);
    try {
      return await running;
    } catch (error) {
      throw outerError(error, signal);
    } finally {
      done = true; // no notification of this request goes out after its response
      server.active.delete(requestId);
    }
  };
}

async function runHandler(
  handler: McpRequestHandler,
  envelope: McpMessageParams,
  connection: AcpConnection,
  signal: AbortSignal,
  isDone: () => boolean,
): Promise<McpOutcome> {
  await Promise.resolve(); // the request is recorded as active before its handler starts
  const params = envelope.params ?? undefined;
  const meta = isJsonObject(params?._meta) ? params._meta : undefined;
  const protocolVersion = meta?.[MCP_META_PROTOCOL_VERSION];
  const clientCapabilities = meta?.[MCP_META_CLIENT_CAPABILITIES];
  if (typeof protocolVersion !== "string")
    return innerInvalidParams(`missing ${MCP_META_PROTOCOL_VERSION} in params._meta`);
  if (protocolVersion !== MCP_PROTOCOL_VERSION) {
    return {
      error: {
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported: [MCP_PROTOCOL_VERSION], requested: protocolVersion },
      },
    };
  }
  if (!isJsonObject(clientCapabilities))
    return innerInvalidParams(`missing ${MCP_META_CLIENT_CAPABILITIES} in params._meta`);
  if (signal.aborted) throw signal.reason;
  const { serverId, requestId } = envelope;
  let outcome: unknown;
  try {
    outcome = await handler({
      serverId,
      requestId,
      method: envelope.method,
      params,
      protocolVersion,
      clientCapabilities,
      clientInfo: meta?.[MCP_META_CLIENT_INFO],
      envelopeMeta: envelope._meta ?? undefined,
      signal,
      async notify(method, notificationParams) {
        if (isDone()) return;
        await connection.notify(MCP_MESSAGE_METHOD, {
          serverId,
          requestId,
          method,
          ...(notificationParams === undefined ? {} : { params: notificationParams }),
        });
      },
    });
  } catch (error) {
    if (!(error instanceof McpProtocolError)) throw error;
    outcome = { error: error.toMcpError() };
  }
  const sendable = sendableOutcome(outcome);
  if (!sendable) {
    throw new InvalidOutcome(
      "MCP server handler produced an invalid outcome: expected exactly one of a defined `result` or an " +
        "`error` with an integer `code` and string `message`",
    );
  }
  return sendable;
}

/** The outer ACP error a failed handler is answered with: never the handler's own ACP code. */
function outerError(error: unknown, signal: AbortSignal): RequestError {
  if (signal.aborted || (error instanceof RequestError && error.code === McpBindingErrorCode.requestCancelled))
    return RequestError.requestCancelled();
  if (error instanceof InvalidOutcome) return new RequestError(McpBindingErrorCode.backendFailed, error.message);
  return new RequestError(McpBindingErrorCode.backendFailed, "MCP server handler failed", {
    details: error instanceof Error ? error.message : String(error),
    ...(error instanceof RequestError ? { code: error.code } : {}),
  });
}
