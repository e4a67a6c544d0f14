/**
 * What fits the connection's message size limit once it is stored and replayed: `session/load` sends every stored
 * update as its own `session/update` notification, whose envelope is larger than the `session/prompt` that carried
 * a user's block. A text chunk is replayed in pieces (`replay.ts`); anything else (an image, audio, a resource) is
 * one message or nothing, so a prompt holding such a block too large to be replayed is refused at the door, before
 * anything is stored, and the session stays loadable.
 *
 * Spec: https://agentclientprotocol.com/protocol/session-setup#loading-sessions — the agent MUST replay the entire
 * conversation to the client as `session/update` notifications before answering `session/load`.
 */
import { ACP_CONNECTION } from "../../acp/connect.js";
import type { HasConnectionContext } from "../../acp/mcp/binding.js";
import { RequestError } from "../../jsonrpc/index.js";
import type { ContentBlock, SessionUpdate } from "../../protocol/index.js";
import { utf8Length } from "../../transports/serialize.js";
import type { ClientPort } from "./session.js";

/** The `data.reason` of a prompt refused because a block could not be replayed by `session/load`. */
export const NOT_REPLAYABLE = "not_replayable";

/** The update kinds whose text content a replay may cut into several chunks. */
export const SPLITTABLE_KINDS: ReadonlySet<string> = new Set([
  "user_message_chunk",
  "agent_message_chunk",
  "agent_thought_chunk",
]);

/** The most UTF-8 bytes one character can take in JSON text (`\u001f`); a split never goes below one character. */
const ONE_CHARACTER = 6;

/**
 * The outgoing message size limit of the connection behind `client`, when it is known: the port's own
 * `maxMessageBytes`, else that of the acpkit connection it stands for. Undefined for a link that has none.
 */
export function messageLimitOf(client: ClientPort): number | undefined {
  if (client.maxMessageBytes !== undefined) return client.maxMessageBytes;
  if (!(ACP_CONNECTION in client)) return undefined;
  return (client as unknown as HasConnectionContext)[ACP_CONNECTION].rpc.maxMessageBytes;
}

/** The UTF-8 size of the `session/update` notification that sends `update` (as the engine serializes it). */
export function updateMessageBytes(sessionId: string, update: SessionUpdate, meta?: unknown): number {
  const params: Record<string, unknown> = { sessionId, update };
  if (meta !== undefined) params._meta = meta;
  return utf8Length(JSON.stringify({ jsonrpc: "2.0", method: "session/update", params }));
}

/** True for a text chunk that a replay may split (see `replay.ts`). */
export function isSplittableText(
  update: SessionUpdate,
): update is SessionUpdate & { content: { type: "text"; text: string } } {
  const content = (update as { content?: { type?: unknown; text?: unknown } }).content;
  return SPLITTABLE_KINDS.has(update.sessionUpdate) && content?.type === "text" && typeof content.text === "string";
}

/**
 * The size of the smallest message `update` can be replayed as: itself, or, for a splittable text chunk, a piece of
 * one character (everything else in the envelope is kept in each piece).
 */
export function smallestReplayBytes(sessionId: string, update: SessionUpdate, meta?: unknown): number {
  if (!isSplittableText(update)) return updateMessageBytes(sessionId, update, meta);
  return (
    updateMessageBytes(sessionId, { ...update, content: { ...update.content, text: "" } } as SessionUpdate, meta) +
    ONE_CHARACTER
  );
}

/**
 * Throws -32602 (`data.reason: "not_replayable"`, with the block's index and type, the size and the limit) when a
 * block of `prompt`, stored as a `user_message_chunk`, could not be replayed within `limit`. Nothing to check
 * without a known limit.
 */
export function refuseUnreplayablePrompt(
  sessionId: string,
  prompt: readonly ContentBlock[],
  limit: number | undefined,
): void {
  if (limit === undefined) return;
  for (const [index, content] of prompt.entries()) {
    const bytes = smallestReplayBytes(sessionId, { sessionUpdate: "user_message_chunk", content });
    if (bytes <= limit) continue;
    throw RequestError.invalidParams(
      { reason: NOT_REPLAYABLE, sessionId, index, type: content.type, messageBytes: bytes, maxMessageBytes: limit },
      `prompt block ${index} (${content.type}) is too large to be replayed: session/load would send it as a ` +
        `${bytes}-byte ` +
        `session/update, over this connection's ${limit}-byte message limit, so it was not accepted. Send it smaller ` +
        "(a file as a resource_link instead of its contents), or raise maxMessageBytes on both sides.",
    );
  }
}
