import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Logger } from "../../jsonrpc/logger.js";
import type { SessionRecord, StoredSession } from "../../agent/toolkit/session-store.js";
import { connectToolkit } from "../../agent/toolkit/testing/harness.js";
import { FileSessionStore, frameRecord } from "./file-session-store.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "acpkit-store-"));
  dirs.push(dir);
  return dir;
}

function recordingLogger(): Logger & { lines: Array<[string, string]> } {
  const lines: Array<[string, string]> = [];
  return {
    lines,
    debug: () => {},
    info: () => {},
    warn: (m) => lines.push(["warn", m]),
    error: (m) => lines.push(["error", m]),
  };
}

const session = (sessionId: string, cwd = "/p", updatedAt = "2025-01-01T00:00:00.000Z"): StoredSession => ({
  sessionId,
  cwd,
  createdAt: updatedAt,
  updatedAt,
});
const say = (text: string): SessionRecord => ({
  kind: "update",
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
});

test("appends survive a reopen, in order, with metadata updates and delete", async () => {
  const dir = tempDir();
  const store = new FileSessionStore({ dir });
  await store.create(session("s1"));
  await Promise.all([
    store.append("s1", [say("a")]),
    store.append("s1", [say("b"), say("c")]),
    store.append("s1", [say("d")]),
  ]);
  await store.update("s1", { title: "Hello", updatedAt: "2025-02-01T00:00:00.000Z" });
  const reopened = new FileSessionStore({ dir });
  assert.deepEqual(await reopened.history("s1"), [say("a"), say("b"), say("c"), say("d")]);
  assert.equal((await reopened.get("s1"))?.title, "Hello");
  await assert.rejects(reopened.create(session("s1")), /already exists/);
  await assert.rejects(reopened.append("nope", [say("x")]), /does not exist/);
  await reopened.delete("s1");
  await reopened.delete("s1");
  assert.equal(await reopened.get("s1"), undefined);
  assert.deepEqual(await reopened.history("s1"), []);
  assert.deepEqual((await reopened.list()).sessions, []);
});

test(
  "a torn last record is dropped with a warning, earlier " + "records intact, and appending continues cleanly",
  async () => {
    const dir = tempDir();
    const store = new FileSessionStore({ dir });
    await store.create(session("s1"));
    await store.append("s1", [say("one"), say("two")]);
    const logPath = store.logPath("s1")!;
    const goodSize = statSync(logPath).size;
    const half = frameRecord(say("three"));
    appendFileSync(logPath, half.slice(0, Math.floor(half.length / 2)));

    const logger = recordingLogger();
    const reopened = new FileSessionStore({ dir, logger });
    assert.deepEqual(await reopened.history("s1"), [say("one"), say("two")]);
    assert.deepEqual(
      logger.lines.map(([level]) => level),
      ["warn"],
    );
    assert.match(logger.lines[0]![1], /torn/);
    assert.equal(statSync(logPath).size, goodSize, "truncated back to the last good record");
    await reopened.append("s1", [say("three")]);
    assert.deepEqual(await new FileSessionStore({ dir }).history("s1"), [say("one"), say("two"), say("three")]);
  },
);

test(
  "session/load of a damaged log answers an error naming the log and its copy; the next load replays every " +
    "readable record",
  async () => {
    const dir = tempDir();
    const store = new FileSessionStore({ dir });
    await store.create(session("s1", "/work"));
    await store.append("s1", [say("one"), say("two")]);
    const logPath = store.logPath("s1")!;
    appendFileSync(logPath, "garbage\n" + frameRecord(say("three")));
    const harness = await connectToolkit({ store: new FileSessionStore({ dir }), onPrompt: async () => "end_turn" });
    await assert.rejects(
      harness.client.loadSession({ sessionId: "s1", cwd: "/work", mcpServers: [] }),
      (error: { code?: number; message?: string }) =>
        error.code === -32603 &&
        error.message!.includes(logPath) &&
        /quarantine/.test(error.message!) &&
        /again/.test(error.message!),
    );
    assert.equal(harness.updates.length, 0, "nothing replayed from a history known to be damaged");
    await harness.client.loadSession({ sessionId: "s1", cwd: "/work", mcpServers: [] });
    assert.deepEqual(
      harness.updates.map((n) => (n.update as { content: { text: string } }).content.text),
      ["one", "two", "three"],
    );
  },
);

test("list pages newest first with an opaque cursor and filters by cwd", async () => {
  const store = new FileSessionStore({ dir: tempDir() });
  for (let i = 0; i < 7; i++)
    await store.create(session(`s${i}`, i % 2 === 0 ? "/even" : "/odd", `2025-01-0${i + 1}T00:00:00.000Z`));
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ limit: 3, ...(cursor === undefined ? {} : { cursor }) });
    seen.push(...page.sessions.map((s) => s.sessionId));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  assert.deepEqual(seen, ["s6", "s5", "s4", "s3", "s2", "s1", "s0"]);
  const even = await store.list({ cwd: "/even", limit: 2 });
  assert.deepEqual(
    even.sessions.map((s) => s.sessionId),
    ["s6", "s4"],
  );
  const rest = await store.list({ cwd: "/even", limit: 2, cursor: even.nextCursor! });
  assert.deepEqual(
    rest.sessions.map((s) => s.sessionId),
    ["s2", "s0"],
  );
  assert.equal(rest.nextCursor, undefined);
  await assert.rejects(store.list({ cursor: "not-a-cursor" }), (error: { code?: number }) => error.code === -32602);
});

test("kill -9 while appending: the store reopens cleanly with every acknowledged record", async () => {
  const dir = tempDir();
  const fixture = path.resolve(
    path.dirname(fileURLToPath(import.meta.url)),
    "../../../test/e2e/fixtures/agent-store-writer.js",
  );
  const child = spawn(process.execPath, [fixture, "--write", dir], { stdio: ["ignore", "pipe", "inherit"] });
  let acked = 0;
  let buffered = "";
  await new Promise<void>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", () => resolve());
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) acked = Number(line.slice(4));
      if (acked >= 60 && child.exitCode === null && !child.killed) child.kill("SIGKILL");
    });
  });
  assert.equal(child.signalCode, "SIGKILL");
  const logger = recordingLogger();
  const store = new FileSessionStore({ dir, logger });
  const records = await store.history("kill-test");
  assert.ok(records.length >= acked, `${records.length} records on disk, ${acked} acknowledged`);
  records.forEach((record, i) => assert.equal((record as { data: { i: number } }).data.i, i));
  assert.deepEqual(
    logger.lines.filter(([level]) => level === "error"),
    [],
  );
  await store.append("kill-test", [{ kind: "data", data: { i: records.length } }]);
  assert.equal((await new FileSessionStore({ dir }).history("kill-test")).length, records.length + 1);
});
