/**
 * How a server hosts an agent per connection: a connector (`{ connect(stream) }`, the official SDK 2.4.0's
 * `AgentConnector` shape, which an `agent()` app already is) is handed a fresh `Stream` for each client connection.
 */
import type { Stream } from "../jsonrpc/link.js";

/** Options a server passes to `connect`. */
export interface AgentConnectOptions {
  /**
   * Run the app's `onConnect` handlers only when the server calls `startConnectHandlers()`: after the client's
   * `initialize` was answered, so nothing they send can precede the initialize response.
   */
  readonly deferConnectHandlers?: boolean;
}

/** What `connect` may return (all optional): when the agent is done, and how to start deferred `onConnect` handlers. */
export interface AgentConnectionLifecycle {
  readonly closed?: Promise<void>;
  startConnectHandlers?(): void;
}

/** Anything that serves one client over a `Stream`: an `agent()` app, a 1.x factory, a stdio agent command. */
export interface AgentConnector {
  connect(stream: Stream, options?: AgentConnectOptions): AgentConnectionLifecycle | unknown;
}

/** Creates a connector for each accepted connection. */
export type AgentFactory = () => AgentConnector;

/**
 * Extra controls on the streams a server hands its connectors, under this symbol: what a relay (such as the stdio
 * agent connector) needs to carry backpressure to a process. Absent on streams from elsewhere.
 */
export const REMOTE_AGENT_CONTROL: unique symbol = Symbol.for("acpkit.remote.agentControl");

/** The controls under `REMOTE_AGENT_CONTROL`. */
export interface RemoteAgentControl {
  /** The transport connection's id (`Acp-Connection-Id`). */
  readonly connectionId: string;
  readonly transport: "http" | "websocket";
  /** True while the client is behind: stop producing until `drain()` resolves. */
  outputBacklogged(): boolean;
  /** Holds delivery of client messages (the agent cannot take more now). */
  pauseInput(): void;
  resumeInput(): void;
}

/** The controls a server put on `stream`, if it is one of a server's agent streams. */
export function remoteAgentControl(stream: Stream): RemoteAgentControl | undefined {
  return (stream as { [REMOTE_AGENT_CONTROL]?: RemoteAgentControl })[REMOTE_AGENT_CONTROL];
}

/** The lifecycle fields of whatever `connect` returned. */
export function lifecycleOf(value: unknown): AgentConnectionLifecycle {
  if (typeof value !== "object" || value === null) return {};
  const lifecycle = value as { closed?: unknown; startConnectHandlers?: unknown };
  const closed = lifecycle.closed;
  const start = lifecycle.startConnectHandlers;
  return {
    closed:
      closed !== undefined && typeof (closed as PromiseLike<void>).then === "function"
        ? Promise.resolve(closed as Promise<void>)
        : undefined,
    startConnectHandlers: typeof start === "function" ? () => (start as () => void).call(value) : undefined,
  };
}
