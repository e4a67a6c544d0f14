/**
 * An `AgentConnector` that records what a router hands it: the options, each message it reads from its stream (the
 * rewritten `initialize` first), whether its `onConnect` start was requested, and the end of its input. It answers
 * nothing; it sends one notification, `_capture/routed`, once it read its first message (so a test reading the
 * client's side knows that everything the router sent before routing was already sent). Works with acpkit's router
 * and the official SDK's alike (it reads the stream's web `readable`).
 */
import type { AgentConnectOptions, AgentConnector } from "../../acp/agent-connector.js";
import type { Stream } from "../../jsonrpc/index.js";

/** The notification a capture connector sends once routed. */
export const ROUTED_NOTICE = "_capture/routed";

export interface CapturedConnection {
  readonly options: AgentConnectOptions | undefined;
  readonly messages: Record<string, unknown>[];
  started: number;
  ended: boolean;
  /** Resolves with the first message read (the `initialize` the router forwarded). */
  readonly first: Promise<Record<string, unknown>>;
}

export interface CaptureConnector extends AgentConnector {
  readonly connections: CapturedConnection[];
}

export function captureConnector(): CaptureConnector {
  const connections: CapturedConnection[] = [];
  return {
    connections,
    connect(stream: Stream, options?: AgentConnectOptions) {
      let resolveFirst!: (message: Record<string, unknown>) => void;
      const connection: CapturedConnection = {
        options,
        messages: [],
        started: 0,
        ended: false,
        first: new Promise((resolve) => (resolveFirst = resolve)),
      };
      connections.push(connection);
      const reader = stream.readable.getReader();
      void (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) {
            connection.ended = true;
            return;
          }
          connection.messages.push(value as Record<string, unknown>);
          if (connection.messages.length > 1) continue;
          resolveFirst(value as Record<string, unknown>);
          const writer = stream.writable.getWriter();
          await writer.write({ jsonrpc: "2.0", method: ROUTED_NOTICE });
          writer.releaseLock();
        }
      })();
      return { closed: new Promise<void>(() => {}), startConnectHandlers: () => void connection.started++ };
    },
  };
}
