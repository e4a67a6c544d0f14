/**
 * Replays a session's history as `session/update` notifications for `session/load`, so that whatever was accepted
 * stays loadable: a text chunk too large for the connection's message limit (a prompt just under the limit comes
 * back wrapped in a larger envelope) is replayed as several chunks of the same kind under the limit, never split
 * inside a character, with the same `messageId`. Nothing else too large is stored by the toolkit (a prompt block
 * that could not be replayed is refused at the door, `replay-limit.ts`, and so is an update too large to send), but
 * a history written under a larger limit, or by other code, can hold one: such a record, one that fails the
 * schema, or one that cannot be serialized at all (a `_meta` nested 100,000 levels deep), is skipped and reported (logger error, and a count in the load response's `_meta`), and never blocks the
 * records after it. Records are checked here, against the unstable schema (a superset of the stable one, so a
 * newer update kind stored by a session that negotiated it stays replayable): the connection's own check of outgoing
 * messages only warns by default (the forgiving writer), and a stored record is known bad before it is sent.
 *
 * Spec: https://agentclientprotocol.com/protocol/session-setup#loading-sessions — the agent MUST replay the entire
 * conversation to the client as `session/update` notifications before answering `session/load`.
 */
import type { Logger } from "../../jsonrpc/logger.js";
import { MessageTooLargeError, UnserializableValueError } from "../../jsonrpc/local-errors.js";
import { SchemaValidationError, type SessionUpdate } from "../../protocol/index.js";
import { unstableSchemas } from "../../protocol/unstable.js";
import { isSplittableText } from "./replay-limit.js";
import type { ClientPort } from "./session.js";
import type { SessionRecord } from "./session-store.js";

/** What a replay did beyond sending every record as is. */
export interface ReplayReport {
  /** Records sent as several chunks because one did not fit the message limit. */
  split: number;
  /** Records not sent (failing the schema, too large and not splittable, or not serializable). */
  skipped: number;
}

/** The `_meta` key of the load response that reports skipped records. */
export const REPLAY_META_KEY = "acpkit/replay";

type TextChunk = SessionUpdate & { content: { type: "text"; text: string } };

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
async function sendSplitting(
  client: ClientPort,
  params: Record<string, unknown>,
  update: SessionUpdate,
): Promise<number> {
  try {
    await client.notify("session/update", { ...params, update });
    return 1;
  } catch (error) {
    const halves =
      error instanceof MessageTooLargeError && isSplittableText(update) ? halve(update.content.text) : undefined;
    if (halves === undefined) throw error;
    const [head, tail] = halves;
    const content = (update as TextChunk).content;
    const first = await sendSplitting(client, params, {
      ...update,
      content: { ...content, text: head },
    } as SessionUpdate);
    return (
      first + (await sendSplitting(client, params, { ...update, content: { ...content, text: tail } } as SessionUpdate))
    );
  }
}

/** Replays the `update` records of `history` to the client, in order; see the file's comment. */
export async function replayHistory(
  client: ClientPort,
  sessionId: string,
  history: readonly SessionRecord[],
  logger: Logger,
): Promise<ReplayReport> {
  const report: ReplayReport = { split: 0, skipped: 0 };
  for (const [index, record] of history.entries()) {
    if (record.kind !== "update") continue;
    const params: Record<string, unknown> = { sessionId };
    if (record._meta !== undefined) params._meta = record._meta;
    try {
      const issues = unstableSchemas.SessionUpdate.check(record.update);
      if (issues.length > 0) throw new SchemaValidationError("SessionUpdate", issues);
      if ((await sendSplitting(client, params, record.update)) > 1) report.split++;
    } catch (error) {
      // What is wrong with the record itself skips it; anything else (the connection closed) ends the replay. A
      // record nested too deep for the checker's or the serializer's recursion is a RangeError of the record's own.
      if (
        !(error instanceof SchemaValidationError) &&
        !(error instanceof MessageTooLargeError) &&
        !(error instanceof UnserializableValueError) &&
        !(error instanceof RangeError)
      )
        throw error;
      report.skipped++;
      logger.error(
        "session/load: skipped a stored update that cannot be replayed; the rest of the history is replayed",
        {
          sessionId,
          record: index,
          sessionUpdate: (record.update as { sessionUpdate?: unknown })?.sessionUpdate,
          detail: error.message,
        },
      );
    }
  }
  return report;
}
