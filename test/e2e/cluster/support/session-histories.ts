/**
 * What the reference agents of a cluster recorded: each session's history as the library's `PostgresSessionStore`
 * reads it back from the cluster's database (the store `acp serve --cluster` gives the reference agent), reduced to
 * the texts of its message chunks. Nothing here runs on its own.
 */
import type { PostgresPool } from "../../../../src/node/postgres/pool.js";
import { PostgresSessionStore } from "../../../../src/node/store/postgres-session-store.js";

/** The texts of a session's recorded message chunks, in history order. */
export interface RecordedTexts {
  /** `agent_message_chunk` texts. */
  readonly agent: string[];
  /** `user_message_chunk` texts (the prompts). */
  readonly user: string[];
}

/** Reads each session's history (a few at a time, on `pool`); a session with no row reads as empty. */
export async function recordedTexts(
  pool: PostgresPool,
  sessionIds: readonly string[],
): Promise<Map<string, RecordedTexts>> {
  // The test's own pool: no migration, no lease taken (reads need none).
  const store = new PostgresSessionStore({ pool, migrate: false });
  const result = new Map<string, RecordedTexts>();
  try {
    for (let i = 0; i < sessionIds.length; i += 4)
      await Promise.all(
        sessionIds.slice(i, i + 4).map(async (sessionId) => {
          const texts: RecordedTexts = { agent: [], user: [] };
          for (const record of await store.history(sessionId)) {
            if (record.kind !== "update" || !("content" in record.update)) continue;
            const { sessionUpdate, content } = record.update;
            if (content == null || Array.isArray(content) || content.type !== "text") continue;
            if (sessionUpdate === "agent_message_chunk") texts.agent.push(content.text);
            else if (sessionUpdate === "user_message_chunk") texts.user.push(content.text);
          }
          result.set(sessionId, texts);
        }),
      );
  } finally {
    await store.close();
  }
  return result;
}
