import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionNotification } from "../../protocol/index.js";
import { TranscriptRouter } from "./transcript-router.js";
import type { MessageEntry } from "./transcript-types.js";

const chunk = (sessionId: string, text: string): SessionNotification => ({
  sessionId,
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
});

test(
  "updates before the session/new response are buffered and " + "replayed on open, then the response's setup applies",
  () => {
    const router = new TranscriptRouter();
    router.route({
      sessionId: "s1",
      update: {
        sessionUpdate: "available_commands_update",
        availableCommands: [{ name: "init", description: "Init" }],
      },
    });
    router.route({ sessionId: "s1", update: { sessionUpdate: "current_mode_update", currentModeId: "early" } });
    router.route(chunk("s1", "hello "));
    router.route(chunk("other", "x"));
    assert.equal(router.get("s1"), undefined);
    assert.equal(router.buffered, 4);
    assert.equal(router.bufferedFor("s1"), 3);
    const seen: string[] = [];
    const router2Sessions: string[] = [];
    const transcript = router.open("s1", {
      modes: { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }] },
    });
    router2Sessions.push(...router.sessionIds);
    transcript.onChange((change) => seen.push(change.type));
    router.route(chunk("s1", "world"));
    assert.equal((transcript.entries[0] as MessageEntry).text, "hello world");
    assert.equal(transcript.availableCommands?.[0]?.name, "init");
    assert.equal(transcript.currentModeId, "ask"); // the response came after the early update
    assert.deepEqual(seen, ["entry_updated"]);
    assert.equal(router.buffered, 1);
    assert.equal(router.open("s1"), transcript);
    assert.deepEqual(router2Sessions, ["s1"]);
    router.discard("other");
    assert.equal(router.buffered, 0);
  },
);

test("onSession sees a transcript before its buffered updates replay", () => {
  const replayed: string[] = [];
  const router = new TranscriptRouter({
    onSession: (transcript) => transcript.onChange((change) => replayed.push(change.type)),
  });
  router.route(chunk("s", "a"));
  router.route(chunk("s", "b"));
  router.open("s");
  assert.deepEqual(replayed, ["entry_added", "entry_updated"]);
});

test("the buffer is bounded; create mode makes transcripts on first sight; forget drops a session", () => {
  const bounded = new TranscriptRouter({ maxBuffered: 2 });
  for (const text of ["1", "2", "3"]) bounded.route(chunk("s", text));
  assert.equal(bounded.buffered, 2);
  assert.equal(bounded.dropped, 1);
  assert.equal((bounded.open("s").entries[0] as MessageEntry).text, "12");
  bounded.route(chunk("t", "x"));
  bounded.close();
  assert.equal(bounded.buffered, 0);

  const eager = new TranscriptRouter({ unknownSessions: "create" });
  eager.route(chunk("a", "x"));
  assert.equal(eager.get("a")?.entries.length, 1);
  eager.forget("a");
  assert.equal(eager.get("a"), undefined);
  assert.deepEqual(eager.sessionIds, []);
});
