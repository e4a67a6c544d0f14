import assert from "node:assert/strict";
import { test } from "node:test";
import { CassetteFormatError, readCassette } from "./cassette.js";
import { CassetteRecorder } from "./recorder.js";

const tool = { name: "test", version: "1.0.0" };
const created = new Date("2026-01-02T03:04:05.000Z");

test(
  "the recorder holds frames until initialize is answered, then " + "writes a header with both sides' capabilities",
  () => {
    const lines: string[] = [];
    const recorder = new CassetteRecorder((line) => lines.push(line), { tool, agent: ["my-agent", "--acp"], created });
    recorder.frame("agent", { kind: "unparsable", line: "booting" }, 1);
    recorder.message(
      "client",
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: 1, clientCapabilities: { terminal: true }, clientInfo: { name: "c", version: "1" } },
      },
      2,
    );
    assert.deepEqual(lines, []);
    recorder.message(
      "agent",
      {
        jsonrpc: "2.0",
        id: 0,
        result: {
          protocolVersion: 1,
          agentCapabilities: { loadSession: true },
          agentInfo: { name: "a", version: "2" },
        },
      },
      3,
      '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"agentInfo":{"name":"a","version":"2"}}}',
    );
    recorder.frame("agent", { kind: "oversized", bytes: 99, head: '{"jsonrpc"' }, 4);
    recorder.close();
    recorder.message("client", { jsonrpc: "2.0", method: "late" }, 5);
    assert.equal(lines.length, 5);
    assert.deepEqual(JSON.parse(lines[0]!), {
      acpCassette: 1,
      created: "2026-01-02T03:04:05.000Z",
      tool,
      agent: ["my-agent", "--acp"],
      protocolVersion: 1,
      clientInfo: { name: "c", version: "1" },
      clientCapabilities: { terminal: true },
      agentInfo: { name: "a", version: "2" },
      agentCapabilities: { loadSession: true },
    });
    const cassette = readCassette(lines.join("\n") + "\n");
    assert.deepEqual(
      cassette.entries.map((e) => [e.time, e.from, e.frame.kind]),
      [
        [1, "agent", "unparsable"],
        [2, "client", "message"],
        [3, "agent", "message"],
        [4, "agent", "oversized"],
      ],
    );
    assert.deepEqual(cassette.entries[3]!.frame, { kind: "oversized", bytes: 99, head: '{"jsonrpc"' });
  },
);

test("a recorder that never sees initialize writes its header at close", () => {
  const lines: string[] = [];
  const recorder = new CassetteRecorder((line) => lines.push(line), { tool, created });
  recorder.frame("agent", { kind: "unparsable", line: "crash" }, 1);
  recorder.close();
  assert.equal(readCassette(lines.join("\n")).entries.length, 1);
});

test("readCassette: a torn last line is dropped; other problems name the line", () => {
  const header = JSON.stringify({ acpCassette: 1, created: "x", tool });
  assert.equal(readCassette(`${header}\n{"time":1,"from":"agent","message":{}}\n{"time":2,"fr`).entries.length, 1);
  assert.throws(
    () => readCassette(`${header}\n{"time":1,"from":"agent"\n{}`),
    (e: unknown) => e instanceof CassetteFormatError && e.line === 2,
  );
  assert.throws(
    () => readCassette(`${header}\n{"time":1,"from":"me","message":{}}`),
    /line 2: "from" must be "client" or "agent"/,
  );
  assert.throws(() => readCassette(`{"time":1}`), /line 1: the first line must be the header/);
  assert.throws(
    () => readCassette(JSON.stringify({ acpCassette: 9, created: "x", tool })),
    /newer than this acpkit reads/,
  );
  assert.throws(() => readCassette(""), /empty/);
});
