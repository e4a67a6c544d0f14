/**
 * Replays a session's history as `session/update` notifications for `session/load`, so that whatever was accepted
 * stays loadable: a text chunk too large for the connection's message limit (a prompt just under the limit comes
 * back wrapped in a larger envelope) is replayed as several chunks of the same kind under the limit, never split
 * inside a character, with the same `messageId`; a record that fails the schema, or is too large and cannot be split
 * (an image), is skipped and reported (logger error, and a count in the load response's `_meta`), and never blocks
 * the records after it.
 *
 * Spec: https://agentclientprotocol.com/protocol/session-setup#loading-sessions — the agent MUST replay the entire
 * conversation to the client as `session/update` notifications before answering `session/load`.
 */
import type { Logger } from "../../jsonrpc/logger.js";
import { MessageTooLargeError } from "../../jsonrpc/local-errors.js";
import { SchemaValidationError, type SessionUpdate } from "../../protocol/index.js";
import type { ClientPort } from "./session.js";
import type { SessionRecord } from "./session-store.js";

/** What a replay did beyond sending every record as is. */
export interface ReplayReport {
  /** Records sent as several chunks because one did not fit the message limit. */
  split: number;
  /** Records not sent (failing the schema, or too large and not splittable). */
  skipped: number;
}

/** The `_meta` key of the load response that reports skipped records. */
export const REPLAY_META_KEY = "acpkit/replay";

const SPLITTABLE = new Set(["user_message_chunk", "agent_message_chunk", "agent_thought_chunk"]);

type TextChunk = SessionUpdate & { content: { type: "text"; text: string } };

function isTextChunk(update: SessionUpdate): update is TextChunk {
  const content = (update as { content?: { type?: unknown; text?: unknown } }).content;
  return SPLITTABLE.has(update.sessionUpdate) && content?.type === "text" && typeof content.text === "string";
}

/** Cuts `text` in two near the middle, never between the halves of a surrogate pair; undefined for one character. */
function halve(text: string): [string, string] | undefined {
  let middle = Math.floor(text.length / 2);
  const code = text.charCodeAt(middle);
  if (code >= 0xdc00 && code <= 0xdfff) middle--;
  return middle <= 0 ? undefined : [text.slice(0, middle), text.slice(middle)];
}

/**
 * Sends one update; a text chunk refused as too large is sent as two halves (recursively, in order). Resolves with
 * the number of notifications sent. Other errors propagate (a closed connection ends the replay).
 */
async function sendSplitting(client: ClientPort, params: Record<string, unknown>, update: SessionUpdate): Promise<number> {
  try {
    await client.notify("session/update", { ...params, update });
    return 1;
  } catch (error) {
    const halves = error instanceof MessageTooLargeError && isTextChunk(update) ? halve(update.content.text) : undefined;
    if (halves === undefined) throw error;
    const [head, tail] = halves;
    const content = (update as TextChunk).content;
    const first = await sendSplitting(client, params, { ...update, content: { ...content, text: head } } as SessionUpdate);
    return first + (await sendSplitting(client, params, { ...update, content: { ...content, text: tail } } as SessionUpdate));
  }
}

/** Replays the `update` records of `history` to the client, in order; see the file's comment. */
export async function replayHistory(client: ClientPort, sessionId: string, history: readonly SessionRecord[], logger: Logger): Promise<ReplayReport> {
  const report: ReplayReport = { split: 0, skipped: 0 };
  for (const [index, record] of history.entries()) {
    if (record.kind !== "update") continue;
    const params: Record<string, unknown> = { sessionId };
    if (record._meta !== undefined) params._meta = record._meta;
    try {
      if ((await sendSplitting(client, params, record.update)) > 1) report.split++;
    } catch (error) {
      if (!(error instanceof SchemaValidationError) && !(error instanceof MessageTooLargeError)) throw error;
      report.skipped++;
      logger.error("session/load: skipped a stored update that cannot be replayed; the rest of the history is replayed", {
        sessionId,
        record: index,
        sessionUpdate: (record.update as { sessionUpdate?: unknown })?.sessionUpdate,
        detail: error.message,
      });
    }
  }
  return report;
}
