import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { AnalyzerFeed } from "./analyzer-feed.js";
import { KIND, RecordReader } from "./tee-protocol.js";

/** The records the analyzer would read, as `kind:text`, and when each write reached it. */
function analyzerSide(sink: PassThrough): { records: string[]; writes: number[] } {
  const records: string[] = [];
  const writes: number[] = [];
  const reader = new RecordReader((kind, bytes) => records.push(`${kind}:${Buffer.from(bytes).toString()}`));
  sink.on("data", (chunk: Buffer) => {
    writes.push(performance.now());
    reader.push(chunk);
  });
  return { records, writes };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const noFlow = { pause: () => {}, resume: () => {} };

test("copies are held while bytes flow and handed over in order once the traffic is quiet", async () => {
  const sink = new PassThrough();
  const seen = analyzerSide(sink);
  const feed = new AnalyzerFeed(sink, { quietMs: 40, ...noFlow });
  for (let i = 0; i < 5; i++) {
    feed.bytes(i % 2 === 0 ? "client" : "agent", Buffer.from(`m${i}`));
    await sleep(10); // closer together than the quiet time
  }
  assert.deepEqual(seen.records, [], "nothing reaches the analyzer during the burst");
  assert.equal(feed.heldBytes, 10);
  await sleep(150);
  assert.deepEqual(seen.records, [
    `${KIND.client}:m0`,
    `${KIND.agent}:m1`,
    `${KIND.client}:m2`,
    `${KIND.agent}:m3`,
    `${KIND.client}:m4`,
  ]);
  assert.ok(seen.writes.at(-1)! - seen.writes[0]! < 5, "the held copies leave together");
  assert.equal(feed.heldBytes, 0);
});

test("traffic that never pauses still reaches the analyzer every maxAgeMs", async () => {
  const sink = new PassThrough();
  const seen = analyzerSide(sink);
  const feed = new AnalyzerFeed(sink, { quietMs: 20, maxAgeMs: 120, ...noFlow });
  const started = performance.now();
  let i = 0;
  while (performance.now() - started < 400) {
    feed.bytes("agent", Buffer.from(`c${i++}`));
    await sleep(5);
  }
  assert.ok(seen.writes.length >= 2, `handed over ${seen.writes.length} times in 400 ms of steady traffic`);
  assert.ok(seen.writes[0]! - started < 300, `first hand-over came ${Math.round(seen.writes[0]! - started)} ms in`);
  feed.release();
  assert.equal(seen.records.length, i, "every copy arrived, once");
  assert.deepEqual(seen.records.slice(0, 3), [`${KIND.agent}:c0`, `${KIND.agent}:c1`, `${KIND.agent}:c2`], "in order");
});

test("more than maxHeldBytes goes at once; an end goes at once, after what was held", () => {
  const sink = new PassThrough();
  const seen = analyzerSide(sink);
  const feed = new AnalyzerFeed(sink, { quietMs: 10_000, maxHeldBytes: 8, ...noFlow });
  feed.bytes("agent", Buffer.from("1234"));
  assert.equal(seen.records.length, 0);
  feed.bytes("agent", Buffer.from("5678"));
  assert.deepEqual(seen.records, [`${KIND.agent}:1234`, `${KIND.agent}:5678`]);
  feed.bytes("client", Buffer.from("x"));
  feed.end("client");
  assert.deepEqual(seen.records.slice(2), [`${KIND.client}:x`, `${KIND.endClient}:`]);
});

test("an analyzer that does not read makes the traffic wait once its backlog passes the bound, and go on when it reads", async () => {
  const sink = new PassThrough({ highWaterMark: 16 });
  let paused = 0;
  let resumed = 0;
  const feed = new AnalyzerFeed(sink, {
    quietMs: 10_000,
    maxHeldBytes: 1,
    maxBacklogBytes: 64,
    pause: () => paused++,
    resume: () => resumed++,
  });
  for (let i = 0; i < 20; i++) feed.bytes("agent", Buffer.alloc(10, 97));
  assert.equal(paused, 1, "paused once, not for every copy");
  assert.equal(resumed, 0);
  sink.resume(); // the analyzer reads
  await sleep(20);
  assert.equal(resumed, 1);
});
