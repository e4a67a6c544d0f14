import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SseParser } from "./sse-parser.js";

type Seen = Array<{ data: string } | { tooLarge: number; head: string }>;

function parse(chunks: Uint8Array[], max = 1 << 20): { seen: Seen; parser: SseParser } {
  const seen: Seen = [];
  const parser = new SseParser(max, {
    data: (data) => seen.push({ data }),
    tooLarge: (bytes, head) => seen.push({ tooLarge: bytes, head }),
  });
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return { seen, parser };
}

const encode = (text: string) => new TextEncoder().encode(text);

/** The same stream written with each line ending the standard allows. */
function withEndings(lines: string[]): Record<string, string> {
  const mixed = lines.map((line, i) => line + ["\n", "\r\n", "\r"][i % 3]).join("");
  return {
    LF: lines.map((l) => l + "\n").join(""),
    CRLF: lines.map((l) => l + "\r\n").join(""),
    CR: lines.map((l) => l + "\r").join(""),
    mixed,
  };
}

// A stream that exercises every rule: BOM, comments, ignored fields, multi-line data, a value without its
// optional space, multi-byte characters (split across chunks at every byte), an empty data event, a "data"
// field without a colon, an unknown field, and a final event left unfinished (never dispatched).
const LINES = [
  "\uFEFF: a comment first, after the BOM",
  'data: {"jsonrpc":"2.0","method":"a","params":{"t":"ü🙂"}}',
  "",
  "event: ignored",
  "id: 7",
  "retry: 100",
  "data:first line",
  "data:  second line, two spaces",
  "data",
  "",
  ":keep-alive",
  "",
  "data:",
  "",
  "unknown: field",
  "data: ☃ after unknown",
  "",
  "data: unfinished, never dispatched",
];
const EXPECTED: Seen = [
  { data: '{"jsonrpc":"2.0","method":"a","params":{"t":"ü🙂"}}' },
  { data: "first line\n second line, two spaces\n" },
  { data: "☃ after unknown" },
];

describe("SseParser", () => {
  for (const [style, text] of Object.entries(withEndings(LINES))) {
    test(`${style} line endings, split at every byte boundary`, () => {
      const bytes = encode(text);
      assert.deepEqual(parse([bytes]).seen, EXPECTED, "in one chunk");
      for (let cut = 0; cut <= bytes.length; cut++) {
        assert.deepEqual(parse([bytes.subarray(0, cut), bytes.subarray(cut)]).seen, EXPECTED, `cut at byte ${cut}`);
      }
      assert.deepEqual(parse(Array.from(bytes, (byte) => Uint8Array.of(byte))).seen, EXPECTED, "one byte at a time");
    });
  }

  test("three-way splits of a CRLF stream, including between CR and LF", () => {
    const bytes = encode(withEndings(LINES).CRLF);
    for (let a = 0; a <= bytes.length; a += 3) {
      for (let b = a; b <= bytes.length; b += 5) {
        assert.deepEqual(
          parse([bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)]).seen,
          EXPECTED,
          `cuts at ${a}, ${b}`,
        );
      }
    }
  });

  test("a CR at the end of a chunk followed by an empty chunk, then LF, is one line ending", () => {
    const { seen } = parse([encode("data: x\r"), new Uint8Array(0), encode("\n\r\n")]);
    assert.deepEqual(seen, [{ data: "x" }]);
  });

  test("only one leading BOM is dropped; a BOM later is data", () => {
    const { seen } = parse([encode("\uFEFFdata: a\n\n"), encode("data: \uFEFFb\n\n")]);
    assert.deepEqual(seen, [{ data: "a" }, { data: "\uFEFFb" }]);
  });

  test("an event exactly at the limit passes; one byte over is skipped and the next event still arrives", () => {
    const max = 10;
    const { seen } = parse([encode("data: 0123456789\n\ndata: 0123456789a\n\ndata: next\n\n")], max);
    assert.deepEqual(seen, [{ data: "0123456789" }, { tooLarge: 11, head: "0123456789a" }, { data: "next" }]);
  });

  test("the limit counts UTF-8 bytes, and the joining newlines of multi-line data", () => {
    const { seen } = parse([encode("data: üüüüü\n\ndata: ü\ndata: üüüü\n\n")], 10);
    assert.deepEqual(seen, [{ data: "üüüüü" }, { tooLarge: 11, head: "ü\nüüüü" }]);
  });

  test("an endless data line is not buffered past the limit, and parsing resumes after it", () => {
    const max = 64;
    const seen: Seen = [];
    const parser = new SseParser(max, {
      data: (data) => seen.push({ data }),
      tooLarge: (bytes, head) => seen.push({ tooLarge: bytes, head: head.slice(0, 4) }),
    });
    parser.push(encode("data: "));
    for (let i = 0; i < 1000; i++) {
      parser.push(encode("x".repeat(100)));
      assert.ok(parser.bufferedChars <= max + 16, `buffered ${parser.bufferedChars}`);
    }
    parser.push(encode("\n\ndata: after\n\n"));
    parser.end();
    assert.deepEqual(seen, [{ tooLarge: 100_000, head: "xxxx" }, { data: "after" }]);
  });

  test("many data lines adding up past the limit are not kept", () => {
    const seen: Seen = [];
    const parser = new SseParser(20, {
      data: (data) => seen.push({ data }),
      tooLarge: (bytes) => seen.push({ tooLarge: bytes, head: "" }),
    });
    for (let i = 0; i < 100; i++) parser.push(encode("data: abcde\n"));
    assert.ok(parser.bufferedChars <= 24);
    parser.push(encode("\n"));
    assert.deepEqual(seen, [{ tooLarge: 599, head: "" }]);
  });

  test("a long comment or unknown field is dropped without affecting the events around it", () => {
    const { seen } = parse([encode(`data: a\n\n:${"c".repeat(500)}\nfoo: ${"f".repeat(500)}\ndata: b\n\n`)], 32);
    assert.deepEqual(seen, [{ data: "a" }, { data: "b" }]);
  });

  test("id sets the last event ID: it goes with each event, persists, skips a value with NUL; an event without data moves it", () => {
    const stream = encode(
      "data: a\n\nid: 1\ndata: b\n\ndata: c\n\nid: 2\n\n:comment\n\nid:3\ndata: d\n\nid: x\0y\ndata: e\n\nid\ndata: f\n\nid: 9\ndata: cut",
    );
    const expected = [
      ["data", "a", ""],
      ["data", "b", "1"],
      ["data", "c", "1"],
      ["position", "2"],
      ["data", "d", "3"],
      ["data", "e", "3"],
      ["data", "f", ""],
    ];
    const run = (chunks: Uint8Array[]) => {
      const seen: unknown[] = [];
      const parser = new SseParser(1 << 20, {
        data: (data, id) => seen.push(["data", data, id]),
        tooLarge: () => assert.fail("nothing is too large"),
        position: (id) => seen.push(["position", id]),
      });
      for (const chunk of chunks) parser.push(chunk);
      parser.end();
      return { seen, lastEventId: parser.lastEventId };
    };
    for (let cut = 0; cut <= stream.length; cut++) {
      const { seen, lastEventId } = run([stream.subarray(0, cut), stream.subarray(cut)]);
      assert.deepEqual(seen, expected, `cut at byte ${cut}`);
      assert.equal(lastEventId, "", "the unfinished last event never became the position");
    }
  });

  test("an event over the limit still carries its id", () => {
    const ids: string[] = [];
    const parser = new SseParser(4, {
      data: (_data, id) => ids.push(`data ${id}`),
      tooLarge: (_bytes, _head, id) => ids.push(`tooLarge ${id}`),
    });
    parser.push(encode("id: 5\ndata: 0123456789\n\nid: 6\ndata: ok\n\n"));
    assert.deepEqual(ids, ["tooLarge 5", "data 6"]);
  });

  test("an event with a type but no data is a signal, not an event; with data, its data is delivered whatever its type", () => {
    const seen: string[] = [];
    const parser = new SseParser(1 << 20, {
      data: (data) => seen.push(`data ${data}`),
      tooLarge: () => seen.push("tooLarge"),
      signal: (type) => seen.push(`signal ${type}`),
    });
    parser.push(encode('id: 1\ndata: {"a":1}\n\nevent: other\ndata: {"b":2}\n\n:\n\nevent: end\n\n'));
    parser.end();
    assert.deepEqual(seen, ['data {"a":1}', 'data {"b":2}', "signal end"]);
    // The type does not outlive its event: a later data-less event without one is no signal.
    const later: string[] = [];
    const again = new SseParser(1 << 20, {
      data: (data) => later.push(data),
      tooLarge: () => {},
      signal: (type) => later.push(`signal ${type}`),
    });
    again.push(encode("event: end\ndata: x\n\nid: 2\n\n"));
    assert.deepEqual(later, ["x"]);
  });

  test("an unfinished event at the end of input is discarded", () => {
    assert.deepEqual(parse([encode("data: a\n\ndata: b\n")]).seen, [{ data: "a" }]);
    assert.deepEqual(parse([encode("data: a\n\ndata: b")]).seen, [{ data: "a" }]);
  });
});
