import type { SendRequestOptions } from "../jsonrpc/index.js";
import type {
  PromptRequest,
  PromptResponse,
  SessionNotification,
  SessionUpdate,
  StopReason,
} from "../protocol/index.js";
import type { AcpConnection } from "../acp/acp-connection.js";
import type { AsyncQueue } from "./async-queue.js";
import { SessionInbox } from "./session-inbox.js";

/**
 * What an `ActiveSession` yields: a `session/update` notification, or the `stop` that ends a prompt turn.
 * Updates of kinds this version does not know (from newer agents) are delivered too, as received.
 */
export type ActiveSessionMessage =
  | {
      kind: "session_update";
      /** The whole notification. */
      notification: SessionNotification;
      /** `notification.update`. */
      update: SessionUpdate;
    }
  | {
      kind: "stop";
      /** The `session/prompt` response. */
      response: PromptResponse;
      /** `response.stopReason`. */
      stopReason: StopReason;
    };

/**
 * Routes one connection's `session/update` notifications to the active sessions of their session id (through the
 * shared `SessionInbox`, ./session-inbox.ts: updates that arrive before their `session/new` response are kept for the
 * session).
 *
 * `sendPrompt` reports the exact arrival of the prompt's response (the engine's `onResponse`), so the `stop` takes
 * its place in the stream: after the updates sent before the response, before those sent after.
 */
export class ActiveSessionFeed {
  private readonly inbox: SessionInbox<ActiveSessionMessage>;

  constructor(readonly connection: AcpConnection) {
    this.inbox = new SessionInbox(connection.logger);
  }

  /** Delivers one notification to the sessions listening to its id (or keeps it, see the class contract). */
  route(notification: SessionNotification): void {
    this.inbox.route(notification.sessionId, { kind: "session_update", notification, update: notification.update });
  }

  /** Marks a `session/new` in flight; call the returned function (once is enough) when it settled and was attached. */
  beginStart(): () => void {
    return this.inbox.beginStart();
  }

  /** Routes `sessionId`'s updates into `queue`, starting with those kept for it; returns the function that stops it. */
  attach(sessionId: string, queue: AsyncQueue<ActiveSessionMessage>): () => void {
    return this.inbox.attach(sessionId, (message) => queue.push(message));
  }

  /**
   * Sends `session/prompt`. `arrived` is called synchronously when the response (result or error) arrives, before
   * any later message is dispatched, and at most once (the engine's `onResponse`).
   */
  sendPrompt(
    params: PromptRequest,
    options: SendRequestOptions | undefined,
    arrived: () => void,
  ): Promise<PromptResponse> {
    return this.connection.request<PromptResponse>("session/prompt", params, { ...options, onResponse: arrived });
  }
}
