import assert from "node:assert/strict";
import { test } from "node:test";
import { incompleteTail, OutputBuffer } from "./output-buffer.js";

test("without a limit everything is kept", () => {
  const buffer = new OutputBuffer();
  buffer.append(Buffer.from("hello "));
  buffer.append(Buffer.from("world"));
  assert.equal(buffer.text(), "hello world");
  assert.equal(buffer.truncated, false);
});

test("truncates from the start, never inside a character, for 2, 3 and 4 byte characters", () => {
  for (const char of ["é", "你", "😀"]) {
    const size = Buffer.byteLength(char);
    for (let limit = 1; limit <= size * 4 + 2; limit++) {
      for (let split = 0; split <= 3; split++) {
        const buffer = new OutputBuffer(limit);
        const all = Buffer.from(`ab${char.repeat(4)}`);
        // Feed in two chunks, cut at an arbitrary byte.
        buffer.append(all.subarray(0, all.length - split));
        buffer.append(all.subarray(all.length - split));
        const text = buffer.text({ final: true });
        assert.ok(!text.includes("\uFFFD"), `${char} limit ${limit}: ${JSON.stringify(text)}`);
        assert.ok(Buffer.byteLength(text) <= limit);
        if (all.length > limit)
          assert.ok(
            Buffer.byteLength(text) > limit - size,
            `${char} limit ${limit}: kept ${Buffer.byteLength(text)} bytes`,
          );
        assert.ok(`ab${char.repeat(4)}`.endsWith(text));
        assert.equal(buffer.truncated, all.length > limit);
      }
    }
  }
});

test("a partial character at the end is held back until it completes (or the process ends)", () => {
  const buffer = new OutputBuffer(100);
  const smile = Buffer.from("x😀");
  buffer.append(smile.subarray(0, 3));
  assert.equal(buffer.text(), "x");
  assert.equal(buffer.text({ final: true }), "x\uFFFD");
  buffer.append(smile.subarray(3));
  assert.equal(buffer.text(), "x😀");
  assert.equal(incompleteTail(Buffer.from("é")), 0);
  assert.equal(incompleteTail(Buffer.from("é").subarray(0, 1)), 1);
});

test("a limit of 0 keeps nothing; a single chunk bigger than the limit keeps its tail", () => {
  const zero = new OutputBuffer(0);
  zero.append(Buffer.from("abc"));
  assert.equal(zero.text(), "");
  assert.equal(zero.truncated, true);
  const small = new OutputBuffer(4);
  small.append(Buffer.from("abcdef"));
  assert.equal(small.text(), "cdef");
  assert.equal(small.truncated, true);
  assert.throws(() => new OutputBuffer(-1), RangeError);
});

test("trimTo (a shared total cap) drops the oldest bytes, never leaving half a character in the text", () => {
  const buffer = new OutputBuffer(100);
  buffer.append(Buffer.from("ab😀cd"));
  buffer.trimTo(5); // cuts inside the 4-byte character
  assert.equal(buffer.truncated, true);
  assert.equal(buffer.byteLength, 5);
  assert.equal(buffer.text({ final: true }), "cd");
  buffer.trimTo(0);
  assert.equal(buffer.text({ final: true }), "");
  buffer.append(Buffer.from("new"));
  assert.equal(buffer.text({ final: true }), "new");
});
