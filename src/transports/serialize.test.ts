import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MessageTooLargeError } from "../jsonrpc/local-errors.js";
import { ENCODE_FRAMES_FROM, encodeLine, serializeFrame, utf8Length } from "./serialize.js";

/** A string of `length` units cycling through 1-, 2-, 3- and 4-byte characters, starting at `offset`. */
function mixed(length: number, offset = 0): string {
  const alphabet = ["a", "é", "你", "😀", "{", "\n"];
  let text = "";
  for (let i = offset; text.length < length; i++) text += alphabet[i % alphabet.length];
  return text.slice(0, length).replace(/[\ud800-\udbff]$/, "z");
}

describe("utf8Length", () => {
  it("counts UTF-8 bytes exactly, short strings and long ones, pairs cut at any slice boundary", () => {
    for (const length of [0, 1, 7, 1023, 1024, 1025, 16 * 1024 - 1, 16 * 1024, 16 * 1024 + 1, 100_000]) {
      for (const offset of [0, 1, 2, 3]) {
        const text = mixed(length, offset);
        assert.equal(utf8Length(text), Buffer.byteLength(text, "utf8"), `length ${length}, offset ${offset}`);
      }
    }
    const ascii = "x".repeat(3 * 1024 * 1024 + 5);
    assert.equal(utf8Length(ascii), ascii.length);
  });
});

describe("encodeLine", () => {
  it("is the text's UTF-8 bytes and a newline, ASCII or not", () => {
    for (const text of ["", "plain", mixed(70_000), `${"x".repeat(100_000)}é`]) {
      assert.deepEqual(Buffer.from(encodeLine(text)), Buffer.from(text + "\n", "utf8"));
    }
  });
});

describe("serializeFrame", () => {
  const message = (content: string) => ({ jsonrpc: "2.0", id: 1, result: { content } });

  it("gives short messages back as JSON text without a newline", () => {
    const frame = serializeFrame(message("hi"), 1024);
    assert.equal(frame, JSON.stringify(message("hi")));
  });

  it("encodes long messages once, as their line, newline included", () => {
    for (const content of ["y".repeat(ENCODE_FRAMES_FROM), mixed(ENCODE_FRAMES_FROM * 2)]) {
      const frame = serializeFrame(message(content), 32 * 1024 * 1024);
      assert.ok(frame instanceof Uint8Array);
      assert.deepEqual(Buffer.from(frame), Buffer.from(JSON.stringify(message(content)) + "\n", "utf8"));
    }
  });

  it("refuses a message one byte over the limit, counting its bytes exactly, and takes one at the limit", () => {
    for (const content of ["y".repeat(ENCODE_FRAMES_FROM * 2), mixed(ENCODE_FRAMES_FROM * 2), "short é"]) {
      const bytes = Buffer.byteLength(JSON.stringify(message(content)), "utf8");
      assert.ok(serializeFrame(message(content), bytes));
      assert.throws(
        () => serializeFrame(message(content), bytes - 1),
        (error: unknown) => error instanceof MessageTooLargeError && error.messageBytes === bytes,
      );
    }
  });

  it("keeps an exact id given as raw text", () => {
    const big = { jsonrpc: "2.0", id: 2 ** 60, result: { content: "z".repeat(ENCODE_FRAMES_FROM) } };
    const frame = serializeFrame(big, 32 * 1024 * 1024, "1152921504606846977");
    const text = typeof frame === "string" ? frame : new TextDecoder().decode(frame);
    assert.ok(text.startsWith('{"jsonrpc":"2.0","id":1152921504606846977,'));
  });
});
