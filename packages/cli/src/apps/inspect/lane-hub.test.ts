import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeRecord, encodeRecord, type ServerMessage } from "./feed-protocol.js";
import { LaneHub, type FeedClient } from "./lane-hub.js";

/** A page that keeps what it is sent: text as parsed messages, binary as decoded records. */
function page(): FeedClient & { messages: ServerMessage[]; records: ReturnType<typeof decodeRecord>[] } {
  const messages: ServerMessage[] = [];
  const records: ReturnType<typeof decodeRecord>[] = [];
  return {
    messages,
    records,
    sendText: (text) => messages.push(JSON.parse(text) as ServerMessage),
    sendBinary: (data) => records.push(decodeRecord(data)),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

test("a record round-trips: lane, side, time, bytes; an end has no bytes; a short record is refused", () => {
  const bytes = new TextEncoder().encode('{"jsonrpc":"2.0"}\n');
  const record = decodeRecord(encodeRecord(7, "agent", 1795468303767.94, bytes));
  assert.deepEqual(
    { ...record, bytes: text(record.bytes) },
    {
      lane: 7,
      from: "agent",
      time: 1795468303767.94,
      bytes: '{"jsonrpc":"2.0"}\n',
    },
  );
  assert.deepEqual(decodeRecord(encodeRecord(1, "client", 5, undefined)), {
    lane: 1,
    from: "client",
    time: 5,
    bytes: undefined,
  });
  assert.throws(() => decodeRecord(new Uint8Array(4)), /needs 13 bytes of head, got 4/);
});

test("bytes of one burst go out as one record per lane and side, in order, after the lane's announcement", async () => {
  const hub = new LaneHub();
  const live = page();
  hub.attach(live);
  const lane = hub.open("client", "client 1", "key");
  const chunk = new TextEncoder().encode("ab");
  lane.bytes("client", chunk);
  chunk[0] = 0x7a; // the hub took a copy
  lane.bytes("client", new TextEncoder().encode("c\n"));
  lane.bytes("agent", new TextEncoder().encode("x\n"));
  await tick();
  assert.deepEqual(
    live.messages.map((m) => m.type),
    ["lane"],
  );
  assert.deepEqual(
    live.records.map((r) => [r.lane, r.from, text(r.bytes)]),
    [
      [1, "client", "abc\n"],
      [1, "agent", "x\n"],
    ],
  );
  lane.end("agent");
  lane.stderr("a log line");
  lane.close("the agent exited");
  lane.bytes("client", chunk); // after close: dropped
  await tick();
  assert.deepEqual(live.records.at(-1), { lane: 1, from: "agent", time: live.records.at(-1)!.time, bytes: undefined });
  assert.deepEqual(live.messages.slice(1), [
    { type: "stderr", lane: 1, line: "a log line" },
    { type: "lane-closed", lane: 1, reason: "the agent exited" },
  ]);
  assert.equal(live.records.length, 3);
});

test("a page that comes late gets the history first; past the limit, the oldest is dropped and the page is told", async () => {
  const hub = new LaneHub({ maxHistoryBytes: 200 });
  const lane = hub.open("tap", "editor");
  for (let i = 0; i < 10; i++) {
    lane.bytes("agent", new TextEncoder().encode(`${"x".repeat(40)}\n`));
    await tick();
  }
  lane.close("done");
  const late = page();
  hub.attach(late);
  assert.equal(late.messages[0]!.type, "notice");
  assert.match((late.messages[0] as { text: string }).text, /The first \d+ bytes of history were dropped/);
  // The lane is never dropped with the history: announced before its records, closed after them.
  assert.deepEqual(late.messages[1], { type: "lane", lane: lane.info });
  assert.deepEqual(late.messages.at(-1), { type: "lane-closed", lane: 1, reason: "done" });
  const kept = late.records.reduce((sum, r) => sum + (r.bytes?.length ?? 0) + 13, 0);
  assert.ok(kept <= 200 && kept > 0, `kept ${kept} bytes`);
  // Broadcasts are live only: not kept for later pages.
  hub.broadcast({ type: "notice", level: "info", text: "now" });
  const later = page();
  hub.attach(later);
  assert.equal(later.messages.filter((m) => m.type === "notice" && m.text === "now").length, 0);
});
