import assert from "node:assert/strict";
import { test } from "node:test";
import { sseEvents } from "../testing/sse-events.js";
import { parseCursor, RetainedQueue, type QueueWaker } from "./retained-queue.js";

/** A connection's id counter and a queue on it, with what its owner was told. */
function setup(retainBytes = 100_000, createdAt = 0) {
  let lastId = createdAt;
  const counter = () => ++lastId;
  const log = { taken: 0, readerChanges: 0 };
  const make = () =>
    new RetainedQueue(
      counter,
      lastId,
      retainBytes,
      (chars) => (log.taken += chars),
      () => log.readerChanges++,
    );
  return { queue: make(), make, log, skip: (n: number) => (lastId += n) };
}

const reader = (): QueueWaker & { woken: number } => {
  const waker = {
    woken: 0,
    wake() {
      waker.woken++;
    },
  };
  return waker;
};

/** Takes what the reader has, in takes of about `maxChars` (one kept chunk each), as `[id, data]` pairs. */
function takeAll(queue: RetainedQueue, maxChars = Infinity): Array<[string, string]> {
  const events: Array<[string, string]> = [];
  for (let bytes = queue.take(maxChars); bytes !== undefined; bytes = queue.take(maxChars)) {
    for (const [id, data] of sseEvents(bytes)) events.push([id!, data]);
    if (maxChars !== Infinity) break;
  }
  return events;
}

test("parseCursor takes decimal event ids only", () => {
  assert.equal(parseCursor("0"), 0);
  assert.equal(parseCursor("42"), 42);
  assert.equal(parseCursor("9007199254740991"), 9007199254740991);
  for (const bad of ["", "-1", "01", "1.5", "1e3", " 1", "abc", "9007199254740993", "12345678901234567"])
    assert.equal(parseCursor(bad), undefined, bad);
});

test("events get increasing ids from the connection's counter, shared by its streams", () => {
  const { make } = setup();
  const a = make();
  const b = make();
  a.push("a1");
  b.push("b1");
  a.push("a2");
  a.attach(reader());
  b.attach(reader());
  assert.deepEqual(takeAll(a), [
    ["1", "a1"],
    ["3", "a2"],
  ]);
  assert.deepEqual(takeAll(b), [["2", "b1"]]);
});

test("without a cursor a reader starts after what earlier readers took; a second reader is refused", () => {
  const { queue, log } = setup();
  for (const text of ["one", "two", "three"]) queue.push(text);
  const first = reader();
  assert.equal(queue.attach(first), undefined);
  assert.equal(queue.attach(reader()), "busy");
  assert.deepEqual(takeAll(queue, 1), [["1", "one"]], "at least one event, about maxChars");
  assert.equal(log.taken, 3, "what a reader takes for the first time is reported");
  queue.detach(first);
  queue.attach(reader());
  assert.deepEqual(takeAll(queue), [
    ["2", "two"],
    ["3", "three"],
  ]);
  assert.equal(log.taken, 3 + 3 + 5);
  assert.equal(queue.chars, 0);
  assert.equal(queue.retainedBytes, 17 + 17 + 19, "taken events are kept for resumption, as the bytes sent");
});

test("a cursor resumes right after its event: no gap, no duplicate, and taking again reports nothing new", () => {
  const { queue, log } = setup();
  for (let i = 1; i <= 10; i++) queue.push(`e${i}`);
  const first = reader();
  queue.attach(first);
  takeAll(queue);
  assert.equal(log.taken, 21);
  queue.detach(first);
  // The client got events up to id 6 before the break.
  assert.equal(queue.attach(reader(), "6"), undefined);
  assert.deepEqual(
    takeAll(queue).map(([id]) => id),
    ["7", "8", "9", "10"],
  );
  assert.equal(log.taken, 21, "re-sent events were taken before");
  queue.push("e11");
  assert.deepEqual(takeAll(queue), [["11", "e11"]]);
  assert.equal(log.taken, 24);
});

test("a cursor takes the stream over from a reader still attached (a client back before the server saw the break)", () => {
  const { queue, log } = setup();
  queue.push("x");
  queue.push("y");
  const stale = reader();
  queue.attach(stale);
  takeAll(queue);
  const changes = log.readerChanges;
  const fresh = reader();
  assert.equal(queue.attach(fresh, "1"), undefined);
  assert.equal(stale.woken, 1, "the displaced reader is woken (it then finds it is no longer attached)");
  assert.equal(queue.reader, fresh);
  assert.equal(log.readerChanges, changes, "one reader in, one out: nothing for the owner to count");
  queue.detach(stale);
  assert.equal(queue.reader, fresh, "the displaced reader leaving does not detach the new one");
  assert.deepEqual(takeAll(queue), [["2", "y"]]);
});

test("a cursor ahead of what the reader took counts the events up to it as taken", () => {
  const { queue, log } = setup();
  for (const text of ["aa", "bb", "cc"]) queue.push(text);
  queue.attach(reader(), "2");
  assert.equal(log.taken, 4);
  assert.equal(queue.chars, 2);
  assert.deepEqual(takeAll(queue), [["3", "cc"]]);
});

test("cursors that are not ids of the stream are refused: malformed, ahead of its last event", () => {
  const { queue, make } = setup();
  queue.push("a");
  const other = make();
  other.push("b");
  assert.equal((queue.attach(reader(), "x1") as { kind: string }).kind, "malformed");
  const ahead = queue.attach(reader(), "2") as { kind: string; message: string };
  assert.equal(ahead.kind, "ahead");
  assert.match(ahead.message, /its last event is 1/);
  assert.equal(queue.hasReader, false, "a refused reader is not attached");
  assert.equal(queue.attach(reader(), "1"), undefined, "the last event is a valid cursor: nothing after it yet");
  assert.deepEqual(takeAll(queue), []);
});

test("retention is bounded: the oldest kept chunks go first, and a cursor before them is expired", () => {
  const { queue } = setup(40);
  for (let i = 1; i <= 5; i++) queue.push(`abcd${i}`); // "id: N\ndata: abcdN\n\n": 19 bytes each
  const first = reader();
  queue.attach(first);
  for (let i = 1; i <= 5; i++) assert.equal(takeAll(queue, 1).length, 1, "one event per take");
  assert.equal(queue.retainedBytes, 38, "two chunks kept");
  queue.detach(first);
  const expired = queue.attach(reader(), "2") as { kind: string; message: string };
  assert.equal(expired.kind, "expired");
  assert.match(expired.message, /no longer kept \(this stream keeps events after 3\)/);
  assert.equal(queue.attach(reader(), "3"), undefined, "the last dropped event's id is still a valid cursor");
  assert.deepEqual(
    takeAll(queue).map(([id]) => id),
    ["4", "5"],
  );
});

test("a resume starts in the middle of a kept chunk, right after the cursor's event", () => {
  const { queue, log } = setup();
  for (let i = 1; i <= 6; i++) queue.push(`{"n":${i},"s":"${"ü".repeat(i)}"}`);
  const first = reader();
  queue.attach(first);
  assert.equal(takeAll(queue).length, 6, "one chunk of six events");
  const taken = log.taken;
  queue.detach(first);
  for (const cursor of ["0", "1", "3", "5", "6"]) {
    const resumed = reader();
    assert.equal(queue.attach(resumed, cursor), undefined);
    assert.deepEqual(
      takeAll(queue).map(([id, data]) => [id, JSON.parse(data).n]),
      Array.from({ length: 6 - Number(cursor) }, (_, i) => [String(Number(cursor) + i + 1), Number(cursor) + i + 1]),
      `after ${cursor}`,
    );
    queue.detach(resumed);
  }
  assert.equal(log.taken, taken, "replays are not taken again");
});

test("new events follow the replay of kept ones, and are kept in turn", () => {
  const { queue } = setup(40);
  for (let i = 1; i <= 4; i++) queue.push(`ev-${i}`); // "id: N\ndata: ev-N\n\n": 18 bytes each
  const first = reader();
  queue.attach(first);
  for (let i = 1; i <= 4; i++) takeAll(queue, 1);
  queue.detach(first);
  assert.equal(queue.attach(reader(), "2"), undefined);
  queue.push("ev-5");
  assert.deepEqual(
    takeAll(queue).map(([id]) => id),
    ["3", "4", "5"],
  );
  assert.equal(queue.retainedBytes, 36, "the newest two chunks are kept");
});

test("pending events (never taken) are never trimmed, whatever the retention budget", () => {
  const { queue } = setup(1);
  for (let i = 0; i < 100; i++) queue.push(`pending-${i}`);
  queue.attach(reader());
  const events = takeAll(queue);
  assert.equal(events.length, 100);
  assert.equal(events[99]![1], "pending-99");
});

test("ids stay right across compaction of a long stream", () => {
  const { queue } = setup(2000);
  const first = reader();
  queue.attach(first);
  for (let i = 1; i <= 3000; i++) queue.push(`event-${String(i).padStart(5, "0")}`); // 11 chars
  const ids: number[] = [];
  for (let i = 0; i < 3000; i++) ids.push(...takeAll(queue, 11).map(([id]) => Number(id)));
  assert.deepEqual(
    ids,
    Array.from({ length: 3000 }, (_, i) => i + 1),
  );
  queue.detach(first);
  assert.equal(queue.attach(reader(), "2990"), undefined);
  const events = takeAll(queue);
  assert.deepEqual(
    events.map(([id]) => id),
    ["2991", "2992", "2993", "2994", "2995", "2996", "2997", "2998", "2999", "3000"],
  );
  assert.equal(events[0]![1], "event-02991");
  assert.equal((queue.attach(reader(), "2000") as { kind: string }).kind, "expired");
});

test("a stream made after other streams' events refuses cursors from before it was made as expired", () => {
  const { make, skip } = setup();
  skip(50);
  const late = make();
  late.push("late");
  assert.equal((late.attach(reader(), "49") as { kind: string }).kind, "expired");
  assert.equal(late.attach(reader(), "50"), undefined);
  assert.deepEqual(takeAll(late), [["51", "late"]]);
});

test("drop forgets everything and returns what no reader took; older cursors are then expired", () => {
  const { queue } = setup();
  queue.push("taken");
  const first = reader();
  queue.attach(first);
  takeAll(queue);
  queue.push("waiting");
  queue.detach(first);
  assert.equal(queue.chars, 7);
  assert.equal(queue.drop(), 7);
  assert.equal(queue.ended, true);
  assert.equal(queue.retainedBytes, 0);
  assert.equal((queue.attach(reader(), "1") as { kind: string }).kind, "expired");
  assert.equal(queue.push("more"), false, "nothing is appended to a dropped stream");
});

test("end lets the reader take what is there, then it has nothing more", () => {
  const { queue } = setup();
  const waker = reader();
  queue.attach(waker);
  queue.push("last");
  assert.equal(waker.woken, 1, "a push wakes the reader");
  queue.end();
  assert.equal(waker.woken, 2, "the end wakes it too");
  assert.equal(queue.hasUnread, true);
  assert.deepEqual(takeAll(queue), [["1", "last"]]);
  assert.equal(queue.hasUnread, false);
  assert.equal(queue.ended, true);
});
