import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LINK, type Stream } from "../jsonrpc/link.js";
import { DEFAULT_MAX_MESSAGE_BYTES, ndJsonStream } from "./ndjson.js";
import { webByteSink, webByteSource } from "./bytes.js";
import { NdJsonLink } from "./ndjson-link.js";

import { enc, manualInput, note, parseBytes, receive, recordingOutput, tick } from "./testing/ndjson-harness.js";

describe("ndJsonStream framing", () => {
  const msgs = [note(1, "é"), note(2, "你好"), note(3, "😀 emoji"), { jsonrpc: "2.0", id: 4, result: { ok: true } }];
  const wire = enc(msgs.map((m) => JSON.stringify(m)).join("\r\n\n") + "\n   \n" + JSON.stringify(note(5)));
  const expected = [...msgs, note(5)];

  it("exports the official default limit", () => assert.equal(DEFAULT_MAX_MESSAGE_BYTES, 32 * 1024 * 1024));

  it("delivers the same messages for every split point, in 1-byte chunks and all at once", async () => {
    const whole = parseBytes([wire]);
    await whole.closed;
    assert.deepEqual(whole.messages, expected);
    assert.deepEqual(whole.problems, []);
    for (let i = 0; i <= wire.length; i++) {
      const r = parseBytes([wire.subarray(0, i), wire.subarray(i)]);
      assert.equal(await r.closed, undefined);
      assert.deepEqual(r.messages, expected, `split at byte ${i}`);
      assert.deepEqual(r.problems, []);
    }
    const bytewise = parseBytes([...wire].map((b) => Uint8Array.of(b)));
    await bytewise.closed;
    assert.deepEqual(bytewise.messages, expected);
  });

  it("skips an oversized line with a too_large problem, and delivers the next line", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "big", params: { pad: "p".repeat(500) } });
    for (const chunkSize of [1_000_000, 16]) {
      const all = enc(`${big}\n${JSON.stringify(note(8))}\n`);
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < all.length; i += chunkSize) chunks.push(all.subarray(i, i + chunkSize));
      const r = parseBytes(chunks, { maxMessageBytes: 100 });
      await r.closed;
      assert.deepEqual(r.messages, [note(8)]);
      assert.equal(r.problems.length, 1);
      const p = r.problems[0]!;
      assert.ok(p.kind === "too_large");
      assert.equal(p.limit, 100);
      assert.ok(p.head.startsWith('{"jsonrpc":"2.0","id":7,"method":"big"'), p.head);
      if (chunkSize > all.length) assert.equal(p.bytes, big.length);
      else assert.ok(p.bytes > 100 && p.bytes <= 117);
    }
  });

  it("raises too_large before the oversized line ends, holding at most the limit", async () => {
    const manual = manualInput();
    const link = new NdJsonLink(webByteSource(manual.input), webByteSink(recordingOutput().output), {
      maxMessageBytes: 1024,
    });
    const r = receive({ [LINK]: link } as unknown as Stream);
    manual.push(enc('{"id":1,"method":"m","params":{"x":"'));
    let held = 0;
    for (let i = 0; i < 2000 && r.problems.length === 0; i++) {
      manual.push(new Uint8Array(100).fill(0x61));
      await tick();
      held = Math.max(held, link.bufferedInputBytes);
    }
    assert.equal(r.problems.length, 1, "reported while the line is still arriving");
    assert.ok(held <= 1025, `held ${held} bytes`);
    for (let i = 0; i < 100; i++) manual.push(new Uint8Array(100_000).fill(0x61));
    await tick();
    assert.equal(link.bufferedInputBytes, 0, "the rest of the line is discarded, not buffered");
    manual.push(enc('aaa"}}\n{"jsonrpc":"2.0","method":"after"}\n'));
    manual.end();
    await r.closed;
    assert.equal(r.problems.length, 1);
    assert.deepEqual(r.messages, [{ jsonrpc: "2.0", method: "after" }]);
  });

  it("reports non-JSON lines as parse problems and carries on", async () => {
    const long = "log line ".repeat(50);
    const r = parseBytes([enc(`hello world\n{bad json\n  [1,\n${long}\n{"jsonrpc":"2.0","method":"ok"}\n`)]);
    await r.closed;
    assert.deepEqual(r.messages, [{ jsonrpc: "2.0", method: "ok" }]);
    assert.deepEqual(
      r.problems.map((p) => p.kind === "parse" && [p.preview, p.looksLikeJson]),
      [
        ["hello world", false],
        ["{bad json", true],
        ["  [1,", true],
        [long.slice(0, 200), false],
      ],
    );
    assert.ok(r.problems.every((p) => p.kind === "parse" && p.detail.length > 0));
  });

  it("delivers any JSON value to the link (the engine validates)", async () => {
    const r = parseBytes([enc('1\n"s"\n[1,2]\nnull\n')]);
    await r.closed;
    assert.deepEqual(r.messages, [1, "s", [1, 2], null]);
  });

  it("ends with closed(error) when the input fails", async () => {
    const manual = manualInput();
    const r = receive(ndJsonStream(recordingOutput().output, manual.input));
    manual.push(enc('{"a":1}\n'));
    const boom = new Error("read failed");
    await tick();
    manual.fail(boom);
    assert.equal(await r.closed, boom);
    assert.deepEqual(r.messages, [{ a: 1 }]);
  });

  it("ends with closed(error) when the receiver throws, and closes once", async () => {
    const boom = new Error("receiver bug");
    const closes: unknown[] = [];
    const input = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(enc("{}\n{}\n")) });
    ndJsonStream(recordingOutput().output, input)[LINK]!.start({
      message: () => {
        throw boom;
      },
      problem: () => {},
      closed: (cause) => closes.push(cause),
    });
    await tick();
    assert.deepEqual(closes, [boom]);
  });
});

describe("ndJsonStream closing", () => {
  it("delivers nothing more once close() is called from inside the receiver", async () => {
    const got: unknown[] = [];
    const closes: unknown[] = [];
    const input = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(enc("1\n2\n{oops\n3\n")) });
    const link = ndJsonStream(recordingOutput().output, input)[LINK]!;
    link.start({
      message: (m) => {
        got.push(m);
        void link.close();
      },
      problem: (p) => got.push(p),
      closed: (cause) => closes.push(cause),
    });
    await tick();
    assert.deepEqual(got, [1]);
    assert.deepEqual(closes, [undefined]);
  });
});
