/**
 * The agent of a connection opened with a share token: no process, nothing to run. It answers `initialize`
 * (advertising attach for observers only) and refuses every other request with a clear error; the connection's
 * only use is `session/attach` (role `observer`) to the shared session, which the server handles before any agent.
 */
import type { AgentConnector } from "../../../acp/agent-connector.js";
import type { AnyMessage } from "../../../jsonrpc/messages.js";
import { isRecord } from "../../../jsonrpc/messages.js";
import type { Stream } from "../../../jsonrpc/link.js";
import { ERROR_NOT_ALLOWED } from "./share-protocol.js";

/** The session a connector lets its connection observe (set on connectors made by `observerAgent`). */
export const SHARE_GRANT: unique symbol = Symbol.for("acpkit.remote.shareGrant");

/** The session `connector` is limited to, if it is an observer agent. */
export function shareGrantOf(connector: AgentConnector): string | undefined {
  return (connector as { [SHARE_GRANT]?: string })[SHARE_GRANT];
}

/** An agent for connections that may only observe `sessionId`. */
export function observerAgent(sessionId: string): AgentConnector {
  return {
    [SHARE_GRANT]: sessionId,
    connect(stream: Stream) {
      const writer = stream.writable.getWriter();
      const reader = stream.readable.getReader();
      const closed = (async () => {
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            const answer = answerOf(value, sessionId);
            if (answer !== undefined) await writer.write(answer);
          }
        } finally {
          await writer.close().catch(() => {});
        }
      })();
      return { closed, startConnectHandlers() {} };
    },
  } as AgentConnector;
}

function answerOf(message: AnyMessage, sessionId: string): AnyMessage | undefined {
  const value = message as unknown as Record<string, unknown>;
  if (typeof value.method !== "string" || !("id" in value)) return undefined;
  const id = value.id as string | number;
  if (value.method === "initialize") {
    const params = isRecord(value.params) ? value.params : {};
    return {
      jsonrpc: "2.0",
      id,
      result: {
        protocolVersion: typeof params.protocolVersion === "number" ? Math.min(params.protocolVersion, 1) : 1,
        agentCapabilities: { loadSession: false, sessionCapabilities: {} },
        agentInfo: { name: "acpkit shared-session observer", version: "1" },
        authMethods: [],
      },
    } as AnyMessage;
  }
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: ERROR_NOT_ALLOWED,
      message:
        `Not allowed: this connection was opened with a share token for session ${sessionId}; it can only ` +
        `observe that session (session/attach with role "observer")`,
    },
  } as AnyMessage;
}
