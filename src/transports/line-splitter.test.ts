import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EnvelopeSketch } from "../jsonrpc/envelope-scanner.js";
import { LineSplitter } from "./line-splitter.js";

type Event = { line: string } | { tooLarge: number; head: string; envelope?: EnvelopeSketch };

function splitter(max = 1 << 20): { s: LineSplitter; events: Event[] } {
  const events: Event[] = [];
  const s = new LineSplitter(max, {
    line: (line) => events.push({ line }),
    tooLarge: (bytes, head, envelope) =>
      events.push(
        envelope.kind === "unknown" && Object.keys(envelope).length === 1
          ? { tooLarge: bytes, head }
          : { tooLarge: bytes, head, envelope },
      ),
  });
  return { s, events };
}

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);

function feed(chunks: Uint8Array[], max?: number): Event[] {
  const { s, events } = splitter(max);
  for (const chunk of chunks) s.push(chunk);
  s.end();
  return events;
}

const lines = (...texts: string[]): Event[] => texts.map((line) => ({ line }));

describe("LineSplitter", () => {
  const text = 'ab\r\n\n{"x":"é你😀"}\n   \n\r\nlast 😀';
  const bytes = enc(text);
  const expected = lines("ab", '{"x":"é你😀"}', "   ", "last 😀");

  it("gives the same lines for every split point, 1-byte chunks and one chunk", () => {
    assert.deepEqual(feed([bytes]), expected);
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j += 3) {
        assert.deepEqual(
          feed([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)]),
          expected,
          `split at ${i},${j}`,
        );
      }
    }
    assert.deepEqual(feed([...bytes].map((b) => Uint8Array.of(b))), expected);
  });

  it("decodes mixed ASCII and non-ASCII chunks correctly whichever decoder it picks", () => {
    const many: string[] = [];
    for (let i = 0; i < 200; i++) many.push(i % 7 < 3 ? `line ${i} plain` : `line ${i} é你😀`);
    const all = enc(many.join("\n") + "\n");
    for (const size of [1, 5, 64, 1000]) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < all.length; i += size) chunks.push(all.subarray(i, i + size));
      assert.deepEqual(feed(chunks), lines(...many), `chunks of ${size}`);
    }
  });

  it("turns invalid UTF-8 into U+FFFD without touching the next line", () => {
    assert.deepEqual(feed([Uint8Array.of(0x61, 0xe4, 0xbd, 0x0a, 0x62, 0x0a)]), lines("a\ufffd", "b"));
    assert.deepEqual(feed([enc("é\n"), Uint8Array.of(0x61, 0xe4, 0x0a, 0x62, 0x0a)]), lines("é", "a\ufffd", "b"));
  });

  it("skips an oversized line within one chunk, with its exact size and head", () => {
    const big = "B".repeat(300);
    const events = feed([enc(`ok1\n${big}\nok2\n`)], 100);
    assert.deepEqual(events, [{ line: "ok1" }, { tooLarge: 300, head: "B".repeat(256) }, { line: "ok2" }]);
  });

  it("accepts a line of exactly the limit, with or without CR", () => {
    const line = "x".repeat(10);
    assert.deepEqual(feed([enc(`${line}\r\n${line}\n`)], 10), lines(line, line));
    const chunks = [...enc(`${line}\r\n${line}\r`)].map((b) => Uint8Array.of(b));
    assert.deepEqual(feed(chunks, 10), lines(line, line));
  });

  it("reports an oversized line whose envelope is known as soon as the limit is passed, never buffering more", () => {
    const { s, events } = splitter(1000);
    const start = enc('{"jsonrpc":"2.0","id":3,"result":{"head":"é');
    s.push(start);
    let max = 0;
    let pushed = start.length;
    for (let i = 0; i < 500; i++) {
      s.push(enc("y".repeat(64)));
      pushed += 64;
      max = Math.max(max, s.bufferedBytes);
      if (pushed <= 1001) assert.equal(events.length, 0, "not yet over the limit");
      else if (pushed - 64 <= 1001) assert.equal(events.length, 1, "reported as soon as over the limit");
    }
    assert.ok(max <= 1001, `buffered ${max}`);
    assert.equal(s.bufferedBytes, 0);
    s.push(enc('yyy"}}\n{"next":1}\n'));
    s.end();
    const [problem, next] = events;
    assert.ok(problem && "tooLarge" in problem);
    assert.ok(problem.tooLarge > 1000);
    assert.ok(problem.head.startsWith('{"jsonrpc":"2.0","id":3,"result":{"head":"éyyy'));
    assert.equal(problem.head.length, 255); // 256 bytes: "é" takes two
    assert.deepEqual(problem.envelope, { kind: "response", id: 3 });
    assert.deepEqual(next, { line: '{"next":1}' });
  });

  it("finds the id of an oversized line wherever it stands: reported once it arrives, never buffered", () => {
    const body = `{"jsonrpc":"2.0","method":"session/prompt","params":{"text":"${"p".repeat(5000)}","id":"nested","s":"\\"}{"},"id":"outer"}`;
    const wire = enc(`${body}\n{"next":1}\n`);
    for (const size of [1, 7, 64, 1000, wire.length]) {
      const { s, events } = splitter(1000);
      let max = 0;
      for (let i = 0; i < wire.length; i += size) {
        s.push(wire.subarray(i, i + size));
        max = Math.max(max, s.bufferedBytes);
        if (i + size < body.indexOf(',"id":"outer"'))
          assert.equal(events.length, 0, "the id is not known before it arrives");
      }
      s.end();
      assert.ok(max <= 1001, `buffered ${max}`);
      const reported = events[0] as { tooLarge: number };
      assert.ok(reported.tooLarge > 1000 && reported.tooLarge <= enc(body).length, `size ${reported.tooLarge}`);
      assert.deepEqual(
        events[0],
        {
          tooLarge: reported.tooLarge,
          head: body.slice(0, 256),
          envelope: { kind: "request", id: "outer", method: "session/prompt" },
        },
        `chunks of ${size}`,
      );
      assert.deepEqual(events[1], { line: '{"next":1}' });
    }
  });

  it("reports an oversized line that ends with the input", () => {
    const { s, events } = splitter(10);
    s.push(enc('{"jsonrpc":"2.0","params":[1,2,3,4,5],"method":"m"'));
    s.end();
    assert.deepEqual(events, [
      {
        tooLarge: 50,
        head: '{"jsonrpc":"2.0","params":[1,2,3,4,5],"method":"m"',
        envelope: { kind: "unknown", method: "m" },
      },
    ]);
  });

  it("handles oversized lines among good ones inside one big chunk", () => {
    const big = "Z".repeat(50);
    const events = feed([enc(`a\n${big}\nb\n\n${big}\r\nc\n${big}`)], 20);
    assert.deepEqual(events, [
      { line: "a" },
      { tooLarge: 50, head: big },
      { line: "b" },
      { tooLarge: 50, head: big },
      { line: "c" },
      { tooLarge: 50, head: big },
    ]);
  });

  it("joins a line spanning many chunks in linear time", () => {
    // 40 MiB in 16 KiB chunks: rescanning or re-joining per chunk would copy ~50 GB and take minutes.
    const size = 40 * 1024 * 1024;
    const chunk = new Uint8Array(16 * 1024).fill(0x61);
    const { s, events } = splitter(64 * 1024 * 1024);
    const started = performance.now();
    s.push(enc('"'));
    for (let sent = 0; sent < size; sent += chunk.length) s.push(chunk);
    s.push(enc('"\n'));
    const elapsed = performance.now() - started;
    assert.equal(events.length, 1);
    const only = events[0]!;
    assert.ok("line" in only && only.line.length === size + 2);
    assert.ok(elapsed < 3000, `took ${elapsed} ms`);
  });

  describe("long lines, held as the chunks they came in", () => {
    /** A deterministic line of `size` characters mixing ASCII with 2-, 3- and 4-byte UTF-8 characters. */
    const longLine = (size: number, seed: number): string => {
      const alphabet = ["a", "b", "{", '"', "é", "你", "😀", " ", "z", "0"];
      const parts: string[] = [];
      for (let i = 0, x = seed; parts.length < size / 8; i++) {
        x = (x * 1103515245 + 12345) >>> 0;
        parts.push(alphabet[x % alphabet.length]!.repeat(1 + (x % 13)));
      }
      return parts
        .join("")
        .slice(0, size)
        .replace(/[\ud800-\udbff]$/, "x");
    };
    /** Compares events without printing megabytes when they differ. */
    const sameEvents = (actual: Event[], expected: Event[]): boolean =>
      actual.length === expected.length && actual.every((e, i) => JSON.stringify(e) === JSON.stringify(expected[i]));
    const cut = (bytes: Uint8Array, sizes: number[]): Uint8Array[] => {
      const chunks: Uint8Array[] = [];
      for (let i = 0, k = 0; i < bytes.length; k++) {
        const size = sizes[k % sizes.length]!;
        // Each chunk its own buffer, as a pipe delivers them.
        chunks.push(bytes.slice(i, i + size));
        i += size;
      }
      return chunks;
    };
    for (const max of [8 * 1024 * 1024, 2 * 1024 * 1024 * 1024]) {
      it(`gives back long lines exactly, however they are cut, with CRLF and at the end of input (limit ${max})`, () => {
        const a = longLine(1_500_000, 1);
        const b = longLine(3_000_000, 2);
        const bytes = enc(`short\n${a}\r\n${b}\nx\n${a}`);
        for (const sizes of [[65536], [1, 70000, 3], [1024 * 1024 + 7]])
          assert.ok(
            sameEvents(feed(cut(bytes, sizes), max), lines("short", a, b, "x", a)),
            `chunks of ${sizes.join(",")}`,
          );
      });
    }

    it("skips a long line that outgrows the limit after megabytes were held, and carries on", () => {
      const max = 2 * 1024 * 1024;
      const tooLong = `{"jsonrpc":"2.0","id":7,"method":"m","params":"${"p".repeat(max)}"}`;
      const fine = "f".repeat(max - 10);
      const bytes = enc(`${fine}\n${tooLong}\n${fine}\nend\n`);
      const events = feed(cut(bytes, [65536]), max);
      assert.equal(events.length, 4);
      assert.ok("line" in events[0]! && events[0].line === fine);
      const skipped = events[1] as { tooLarge: number; head: string; envelope?: EnvelopeSketch };
      assert.ok(skipped.tooLarge > max, "reported with what had arrived, over the limit");
      assert.equal(skipped.envelope?.id, 7);
      assert.ok(skipped.head.startsWith('{"jsonrpc":"2.0","id":7'));
      assert.ok(sameEvents(events.slice(2), lines(fine, "end")));
    });

    it("holds a long line until it completes, nothing after", () => {
      const { s, events } = splitter(8 * 1024 * 1024);
      const line = longLine(2_000_000, 4);
      for (const chunk of cut(enc(line), [65536])) s.push(chunk);
      assert.equal(s.bufferedBytes, enc(line).length);
      s.push(enc("\n"));
      assert.equal(s.bufferedBytes, 0);
      assert.ok(sameEvents(events, lines(line)));
    });
  });
});
