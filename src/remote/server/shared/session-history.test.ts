import assert from "node:assert/strict";
import { test } from "node:test";
import { seqOfUpdate, SessionHistory } from "./session-history.js";
import { parseAttach } from "./share-protocol.js";

const update = (text: string, meta?: unknown) => ({
  sessionId: "s",
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  ...(meta === undefined ? {} : { _meta: meta }),
});

test("updates are numbered from 1 and keep the agent's own _meta", () => {
  const history = new SessionHistory(1_000_000);
  const first = JSON.parse(history.append(update("a")));
  const second = JSON.parse(history.append(update("b", { vendor: { x: 1 }, acpkit: { other: true } })));
  assert.equal(first.params._meta.acpkit.seq, 1);
  assert.deepEqual(second.params._meta, { vendor: { x: 1 }, acpkit: { other: true, seq: 2 } });
  assert.equal(second.method, "session/update");
  assert.deepEqual(
    history.replay().map((text) => JSON.parse(text).params._meta.acpkit.seq),
    [1, 2],
  );
  assert.equal(history.lastSeq, 2);
  assert.equal(history.firstKeptSeq, 1);
});

test("past the budget the oldest updates go, and the history says from where it starts", () => {
  const one = new SessionHistory(1_000_000).append(update("x")).length;
  const history = new SessionHistory(one * 3 + 6); // three updates, their two-digit seqs included
  for (let i = 0; i < 10; i++) history.append(update("x"));
  assert.equal(history.lastSeq, 10);
  assert.equal(history.dropped, 7);
  assert.equal(history.firstKeptSeq, 8);
  assert.deepEqual(
    history.replay().map((text) => JSON.parse(text).params._meta.acpkit.seq),
    [8, 9, 10],
  );
  const none = new SessionHistory(0);
  none.append(update("x"));
  assert.deepEqual(none.replay(), []);
  assert.equal(none.firstKeptSeq, 2);
});

test("session/attach params: defaults, roles the RFD's way or in _meta, mistakes named", () => {
  assert.deepEqual(parseAttach({ sessionId: "s" }), {
    ok: true,
    sessionId: "s",
    role: "controller",
    historyPolicy: "full",
    fellBack: false,
    clientId: undefined,
    clientInfo: undefined,
  });
  const observer = parseAttach({ sessionId: "s", _meta: { acpkit: { role: "observer" } }, historyPolicy: "none" });
  assert.ok(observer.ok && observer.role === "observer" && observer.historyPolicy === "none");
  const rfd = parseAttach({ sessionId: "s", role: "observer", clientInfo: { name: "n", version: "1" } });
  assert.ok(rfd.ok && rfd.role === "observer" && rfd.clientInfo?.name === "n");
  const after = parseAttach({ sessionId: "s", historyPolicy: "after_message", afterMessageId: "m" });
  assert.ok(after.ok && after.historyPolicy === "full" && after.fellBack);
  assert.match((parseAttach({}) as { message: string }).message, /needs params.sessionId/);
  assert.match((parseAttach({ sessionId: "s", role: "admin" }) as { message: string }).message, /unknown role/);
  assert.match(
    (parseAttach({ sessionId: "s", historyPolicy: "some" }) as { message: string }).message,
    /unknown historyPolicy "some"/,
  );
});

test("an update kept as the agent wrote it is numbered when replayed, once", () => {
  const history = new SessionHistory(1_000_000);
  const agentText = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: update("raw", { v: 1 }) });
  assert.equal(history.keep(agentText, true), 1);
  history.append(update("numbered"));
  const [first, second] = history.replay().map((text) => JSON.parse(text));
  assert.deepEqual(first.params._meta, { v: 1, acpkit: { seq: 1 } });
  assert.equal(first.params.update.content.text, "raw");
  assert.equal(second.params._meta.acpkit.seq, 2);
  assert.deepEqual(history.replay(), history.replay());
});

test("a session taken over by another node: its reloaded history is renumbered to end where the numbering was", () => {
  const history = new SessionHistory(1_000_000);
  history.append(update("a"));
  history.keep(JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: update("raw") }), true);
  history.append(update("c"));
  history.rebase(40);
  assert.equal(history.lastSeq, 40);
  const replayed = history.replay().map((text) => JSON.parse(text));
  assert.deepEqual(
    replayed.map((one) => one.params._meta.acpkit.seq),
    [38, 39, 40],
  );
  assert.deepEqual(
    replayed.map((one) => one.params.update.content.text),
    ["a", "raw", "c"],
  );
  assert.equal(seqOfUpdate(history.append(update("d"))), 41, "the next update follows");
  history.rebase(10);
  assert.equal(history.lastSeq, 41, "numbering never goes back");
});

test("the seq of a numbered update's text is read from its end; other texts have none", () => {
  const history = new SessionHistory(0);
  history.append(update("x"));
  assert.equal(seqOfUpdate(history.append(update('"seq":99 in the text'))), 2);
  assert.equal(seqOfUpdate('{"jsonrpc":"2.0","id":1,"result":{}}'), undefined);
  assert.equal(seqOfUpdate(JSON.stringify({ params: { text: '"seq":5' + "x".repeat(60) } })), undefined);
});

test("the updates after a seq, for a participant back through another node: from the oldest kept at most", () => {
  const history = new SessionHistory(1_000_000);
  for (const text of ["a", "b", "c", "d"]) history.append(update(text));
  const texts = (replay: string[]) => replay.map((text) => JSON.parse(text).params.update.content.text as string);
  assert.deepEqual(texts(history.replayAfter(2)), ["c", "d"]);
  assert.deepEqual(texts(history.replayAfter(0)), ["a", "b", "c", "d"]);
  assert.deepEqual(history.replayAfter(4), [], "nothing missed");
  assert.deepEqual(history.replayAfter(9), [], "a seq from the future: nothing");
  const small = new SessionHistory(400);
  for (let i = 1; i <= 6; i++) small.append(update(`u${i}`));
  assert.ok(small.firstKeptSeq > 1, "the budget dropped the oldest");
  const after = small.replayAfter(0).map((text) => seqOfUpdate(text));
  assert.equal(after[0], small.firstKeptSeq, "from the oldest kept");
  assert.equal(after.at(-1), 6);
});
