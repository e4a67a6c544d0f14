/**
 * The shape a server asks of an agent it serves per connection (official names, from the SDK 2.4.0's root):
 * `connect(stream, options)` opens the agent on one connection's message stream. An `AgentApp` is one.
 */
import type { Stream } from "../jsonrpc/index.js";

/** Options a server passes to `AgentConnector.connect`. */
export interface AgentConnectOptions {
  /** Run the app's `onConnect` handlers only when the server calls `startConnectHandlers()` (after routing is set up). */
  readonly deferConnectHandlers?: boolean;
}

/** What `connect` may return: the connection's end (`closed`) and, with deferred handlers, how to start them. */
export interface AgentConnectionLifecycle {
  readonly closed?: Promise<void>;
  startConnectHandlers?(): void;
}

/** Something that serves an agent over a message stream, once per connection. */
export interface AgentConnector {
  connect(stream: Stream, options?: AgentConnectOptions): AgentConnectionLifecycle | unknown;
}
