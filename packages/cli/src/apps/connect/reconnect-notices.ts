/**
 * What `acp connect --reconnect` tells the editor and its user about a reconnect: one stderr line per step (editors
 * keep an agent's stderr in their logs), and, once a session is reattached (or could not be), a `session/update`
 * with an `agent_message_chunk` in that session, so the user sees it in the conversation. The turn that was in
 * flight is told by its own error response (`-32603`, "the link to the agent dropped ... reconnecting"), which the
 * bridge writes when the reconnecting link reports it lost.
 *
 * Spec: https://agentclientprotocol.com/protocol/prompt-turn (session/update notifications) and
 * https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (reconnecting is a new `initialize`,
 * then `session/load`)
 */
import type { ReconnectEvent } from "@acpkit/sdk/remote";

/** The text of the notice a session gets after it was reattached. */
export function reattachedNotice(method: string): string {
  return (
    `[acp connect] The connection to the remote agent dropped and was restored; this session was reattached ` +
    `(${method}). A turn that was running when it dropped ended with an error, and anything the agent sent ` +
    `while the link was down is lost.`
  );
}

/** The text of the notice a session gets when it could not be reattached. */
export function reattachFailedNotice(reason: string): string {
  return (
    `[acp connect] The connection to the remote agent dropped and was restored, but this session could not be ` +
    `reattached (${reason}); start a new session.`
  );
}

/** The stderr line for `event`, and the session notice it calls for (if any). */
export function describeReconnectEvent(event: ReconnectEvent): {
  note: string;
  session?: { sessionId: string; text: string };
} {
  const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));
  switch (event.type) {
    case "disconnected":
      return {
        note:
          `the remote agent went away ` +
          `(${event.error === undefined ? "it closed the connection" : reason(event.error)}); reconnecting` +
          (event.lostRequests.length > 0
            ? `, ${event.lostRequests.length} request(s) in flight failed (${event.lostRequests.join(", ")})`
            : ""),
      };
    case "reconnecting":
      return { note: `reconnect attempt ${event.attempt} in ${event.delayMs} ms` };
    case "attempt_failed":
      return { note: `reconnect attempt ${event.attempt} failed: ${reason(event.error)}` };
    case "reconnected":
      return { note: `reconnected (attempt ${event.attempt}); initialized again` };
    case "reattached":
      return {
        note: `session ${event.sessionId} reattached with ${event.method}`,
        session: { sessionId: event.sessionId, text: reattachedNotice(event.method) },
      };
    case "reattach_failed":
      return {
        note: `session ${event.sessionId} could not be reattached: ${reason(event.error)}`,
        session: { sessionId: event.sessionId, text: reattachFailedNotice(reason(event.error)) },
      };
    case "gave_up":
      return { note: `gave up reconnecting after ${event.attempts} attempts: ${reason(event.error)}` };
  }
}

/** The `session/update` frame carrying `text` as an agent message in `sessionId`. */
export function noticeFrame(sessionId: string, text: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
  });
}
