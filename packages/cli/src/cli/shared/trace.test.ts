import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { openTrace } from "./trace.js";
import { MARK, TRACE_MAX_DEPTH } from "./trace-value.js";

const dir = mkdtempSync(join(tmpdir(), "acpkit-trace-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The frame lines of a cassette (the header line aside). */
const records = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line) as Record<string, any>);

/** An array nested `depth` levels deep, built without recursion. */
function deeplyNested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

test(
  "a message that cannot be serialized is still recorded, with markers and a note, and a warning; later ones " +
    "are traced",
  () => {
    const path = join(dir, "hostile.ndjson");
    const warnings: string[] = [];
    const trace = openTrace(path, (text) => warnings.push(text));
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    trace.listener({
      time: 1,
      direction: "in",
      message: { jsonrpc: "2.0", method: "session/update", params: { _meta: { deep: deeplyNested(200_000) } } },
    });
    trace.listener({
      time: 2,
      direction: "out",
      message: { jsonrpc: "2.0", id: 3, method: "x/y", params: { cyclic } },
    });
    trace.listener({
      time: 3,
      direction: "out",
      message: { jsonrpc: "2.0", id: 4, method: "x/z", params: { big: 10n ** 30n } },
    });
    trace.listener({ time: 4, direction: "in", message: { jsonrpc: "2.0", id: 4, result: { fine: true } } });
    trace.close();

    const [deep, cycle, bigint, fine] = records(path);
    assert.equal(deep!.from, "agent");
    assert.equal(deep!.message.method, "session/update");
    assert.match(deep!.note, /not serializable as is \(Maximum call stack size exceeded\)/);
    let level: unknown = deep!.message.params._meta.deep;
    let depth = 3; // the copied message is depth 0; params, _meta; "deep" is at depth 3
    while (Array.isArray(level)) {
      level = level[0];
      depth++;
    }
    assert.equal(level, MARK.deep);
    assert.equal(depth, TRACE_MAX_DEPTH, "the marker stands where the depth limit is");
    assert.deepEqual(cycle!.message.params.cyclic, { a: 1, self: MARK.circular });
    assert.equal(bigint!.message.params.big, MARK.bigint(10n ** 30n));
    assert.equal(cycle!.from, "client");
    assert.deepEqual(fine, { time: 4, from: "agent", message: { jsonrpc: "2.0", id: 4, result: { fine: true } } });
    assert.equal(warnings.length, 3);
    assert.match(
      warnings[0]!,
      /^acp: --trace: message 1 \(from the agent, session\/update\) could not be serialized as is \(Maximum call stack size exceeded\); recorded with markers$/,
    );
    assert.match(
      warnings[1]!,
      /message 2 \(to the agent, x\/y\) could not be serialized as is \(Converting circular structure/,
    );
    assert.match(
      warnings[2]!,
      /message 3 \(to the agent, x\/z\) could not be serialized as is \(Do not know how to serialize a BigInt\)/,
    );
  },
);

test("an id's exact text is recorded beside the message", () => {
  const path = join(dir, "raw-id.ndjson");
  const trace = openTrace(path, () => assert.fail("no warning expected"));
  trace.listener({
    time: 0,
    direction: "in",
    message: { jsonrpc: "2.0", id: 9007199254740992, method: "m" },
    rawId: "9007199254740993",
  });
  trace.close();
  assert.equal(records(path)[0]!.rawId, "9007199254740993");
});

test("a failing write is warned about once per run of failures, and tracing carries on", () => {
  const path = "/dev/full";
  const warnings: string[] = [];
  let trace;
  try {
    trace = openTrace(path, (text) => warnings.push(text));
  } catch {
    return; // no /dev/full on this system
  }
  trace.listener({ time: 0, direction: "out", message: { jsonrpc: "2.0", method: "a" } });
  trace.listener({ time: 1, direction: "out", message: { jsonrpc: "2.0", method: "b" } });
  trace.close();
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /^acp: --trace \/dev\/full: could not write a record \(ENOSPC/);
});
