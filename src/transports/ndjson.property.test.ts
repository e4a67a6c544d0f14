/**
 * Property tests of the NDJSON framing: any sequence of frames (any JSON values, multi-byte UTF-8, LF or CRLF line
 * ends, oversized lines between them), cut into any chunks (inside UTF-8 sequences and line ends too), comes out as
 * the same messages in the same order, each oversized line reported once and skipped.
 * Bounded for CI; `ACPKIT_PROPERTY_RUNS=100000` for a long run.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { LINK, type FrameProblem } from "../jsonrpc/link.js";
import { checkAsyncProperty } from "../jsonrpc/testing/property.js";
import { ndJsonStream } from "./ndjson.js";

const LIMIT = 4096;
const encoder = new TextEncoder();

type Frame = { kind: "message"; value: unknown; crlf: boolean } | { kind: "oversized"; bytes: number; crlf: boolean };

const message = fc
  .record({ value: fc.jsonValue({ maxDepth: 3, stringUnit: "grapheme" }), crlf: fc.boolean() })
  .map(({ value, crlf }) => ({ kind: "message" as const, value: JSON.parse(JSON.stringify(value)) as unknown, crlf }))
  .filter((f) => encoder.encode(JSON.stringify(f.value)).length < LIMIT);
const oversized = fc
  .record({ bytes: fc.integer({ min: LIMIT + 1, max: LIMIT * 3 }), crlf: fc.boolean() })
  .map((f) => ({ kind: "oversized" as const, ...f }));
const frames = fc.array(fc.oneof({ weight: 8, arbitrary: message }, { weight: 1, arbitrary: oversized }), {
  minLength: 1,
  maxLength: 25,
});

function lineOf(frame: Frame): string {
  const body =
    frame.kind === "message"
      ? JSON.stringify(frame.value)
      : JSON.stringify({ id: 1, pad: "é".repeat(Math.ceil(frame.bytes / 2)) });
  return body + (frame.crlf ? "\r\n" : "\n");
}

/** `bytes` cut at the given points (any byte offset, so inside UTF-8 sequences and between \r and \n too). */
function chunks(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    if (p > from) out.push(bytes.subarray(from, p));
    from = Math.max(from, p);
  }
  return out;
}

async function deliver(
  parts: Uint8Array[],
): Promise<{ messages: unknown[]; problems: FrameProblem[]; cause: unknown }> {
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  const stream = ndJsonStream(new WritableStream<Uint8Array>(), input, { maxMessageBytes: LIMIT });
  const messages: unknown[] = [];
  const problems: FrameProblem[] = [];
  const cause = await new Promise<unknown>((resolve) =>
    stream[LINK]!.start({
      message: (value) => messages.push(value),
      problem: (p) => problems.push(p),
      closed: resolve,
    }),
  );
  return { messages, problems, cause };
}

test(
  "any frames cut into any chunks come out as the same " + "messages; oversized lines are reported and skipped",
  async () => {
    await checkAsyncProperty(
      fc.asyncProperty(
        frames,
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.boolean(),
        async (sequence, cuts, everyByte) => {
          const bytes = encoder.encode(sequence.map(lineOf).join(""));
          const parts = everyByte ? Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)) : chunks(bytes, cuts);
          const { messages, problems, cause } = await deliver(parts);
          assert.equal(cause, undefined);
          assert.deepEqual(
            messages,
            sequence.filter((f) => f.kind === "message").map((f) => (f as { value: unknown }).value),
          );
          assert.deepEqual(
            problems.map((p) => p.kind),
            sequence.filter((f) => f.kind === "oversized").map(() => "too_large"),
          );
        },
      ),
      60,
    );
  },
);
