import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EnvelopeScanner, rawIdOf, sketchEnvelope } from "./envelope-scanner.js";

const enc = (text: string) => new TextEncoder().encode(text);

/** Sketches `text` fed in chunks of `size` bytes. */
function sketchInChunks(text: string, size: number) {
  const scanner = new EnvelopeScanner();
  const bytes = enc(text);
  for (let i = 0; i < bytes.length; i += size) scanner.push(bytes, i, Math.min(bytes.length, i + size));
  return scanner.sketch();
}

describe("EnvelopeScanner", () => {
  const cases: Array<[string, string, ReturnType<typeof sketchEnvelope>]> = [
    [
      "a request, id first",
      '{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{}}',
      { kind: "request", id: 4, method: "session/prompt" },
    ],
    [
      "a request, id after the body",
      '{"jsonrpc":"2.0","method":"m","params":{"id":1,"x":[{"id":2}]},"id":"z"}',
      { kind: "request", id: "z", method: "m" },
    ],
    ["a response, id last", '{"jsonrpc":"2.0","result":{"id":9,"s":"}]\\"{"},"id":7}', { kind: "response", id: 7 }],
    [
      "an error response",
      '{ "error" : {"code":-1,"message":"m"} , "id" : null , "jsonrpc":"2.0" }',
      { kind: "response", id: null },
    ],
    [
      "a notification",
      '{"jsonrpc":"2.0","method":"session/update","params":{"id":3}}',
      { kind: "notification", method: "session/update" },
    ],
    ["an id with escapes", '{"id":"a\\"b\\\\","method":"m"}', { kind: "request", id: 'a"b\\', method: "m" }],
    [
      "a number id beyond 2^53",
      '{"method":"m","id":123456789012345678901}',
      { kind: "request", id: Number("123456789012345678901"), rawId: "123456789012345678901", method: "m" },
    ],
    ["an id that is an object", '{"method":"m","id":{"x":1}}', { kind: "unknown", method: "m" }],
    ["not an object", '[{"id":1}]', { kind: "unknown" }],
    [
      "strings with braces and a nested method key",
      '{"params":{"method":"x","t":"{{{["},"result":1,"id":5}',
      { kind: "response", id: 5 },
    ],
  ];
  for (const [name, text, expected] of cases) {
    it(`sketches ${name}, in any chunking`, () => {
      for (const size of [1, 2, 3, 5, 1000])
        assert.deepEqual(sketchInChunks(text, size), expected, `chunks of ${size}`);
    });
  }

  it("is settled once the id and the kind are known, not before", () => {
    const scanner = new EnvelopeScanner();
    scanner.push(enc('{"jsonrpc":"2.0","id":1,'));
    assert.equal(scanner.settled, false);
    scanner.push(enc('"result":{"pad":"'));
    assert.equal(scanner.settled, true);
    const late = new EnvelopeScanner();
    late.push(enc('{"method":"m","params":{"x":"' + "a".repeat(1000)));
    assert.equal(late.settled, false, "a method without an id yet may still get one");
  });

  it("keeps bounded state: an id token longer than 512 bytes is given up, not buffered", () => {
    const sketch = sketchEnvelope(`{"method":"m","id":"${"i".repeat(100_000)}"}`);
    assert.deepEqual(sketch, { kind: "unknown", method: "m" });
  });

  it("rawIdOf: only a number id a JS number cannot hold is looked up", () => {
    const text = '{"jsonrpc":"2.0","id":9007199254740993,"method":"m"}';
    assert.equal(rawIdOf(JSON.parse(text), text), "9007199254740993");
    assert.equal(rawIdOf({ id: 7 }, '{"id":7}'), undefined);
    assert.equal(rawIdOf({ id: "9007199254740993" }, '{"id":"9007199254740993"}'), undefined);
    assert.equal(rawIdOf({ id: 1e300 }, '{"id":1e300}'), "1e300", "JS would write 1e+300");
    assert.equal(rawIdOf({ id: 1.5 }, '{"id":1.5}'), undefined, "a fraction JS writes back the same");
  });
});
