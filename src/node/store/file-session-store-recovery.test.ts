/**
 * The file store's corruption matrix. The property every case checks: no record with a valid checksum is ever lost
 * (it is returned, or kept byte for byte in the log or in a quarantine copy beside it), the load never answers
 * success with a silently shorter history, and the store never follows a symlink.
 *
 * Test lane: first
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { Logger } from "../../jsonrpc/logger.js";
import { RequestError } from "../../jsonrpc/request-error.js";
import type { SessionRecord, StoredSession } from "../../agent/toolkit/session-store.js";
import { FileSessionStore } from "./file-session-store.js";
import { frameRecord, frameValue } from "./session-log-format.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "acpkit-recovery-"));
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

const session = (sessionId: string): StoredSession => ({
  sessionId,
  cwd: "/p",
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
});
const say = (text: string): SessionRecord => ({
  kind: "update",
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
});
const RECORDS = [say("one"), { kind: "data", data: { n: 2, text: "zwei ü" } } as SessionRecord, say("three 😀")];

/** A store dir with session "s1" holding RECORDS; returns the store, its log path and the log's bytes. */
async function seeded(): Promise<{ dir: string; store: FileSessionStore; logPath: string; bytes: Buffer }> {
  const dir = tempDir();
  const store = new FileSessionStore({ dir });
  await store.create(session("s1"));
  await store.append("s1", RECORDS);
  const logPath = store.logPath("s1")!;
  return { dir, store, logPath, bytes: readFileSync(logPath) };
}

/** The store dir `seeded()` made once, which `seededCopy()` copies. */
let template: ReturnType<typeof seeded> | undefined;

/**
 * A copy of a dir `seeded()` made (the same files, byte for byte), for the matrices' hundreds of cases: the store's
 * create and append, with their fsyncs, run once rather than once per case.
 */
async function seededCopy(): Promise<{ dir: string; logPath: string }> {
  template ??= seeded();
  const seed = await template;
  const dir = tempDir();
  cpSync(seed.dir, dir, { recursive: true });
  return { dir, logPath: path.join(dir, path.relative(seed.dir, seed.logPath)) };
}

function quarantined(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.includes(".quarantine-"));
}

const isDamaged = (error: unknown) =>
  error instanceof RequestError &&
  error.code === -32603 &&
  (error.data as { reason?: string }).reason === "damaged_history";

/**
 * Writes `damaged` as s1's log and checks the contract for a damaged log: the load fails with a clear error naming
 * the log and the quarantine copy, the copy holds the damaged bytes exactly, and the next load continues with
 * `readable` (every intact record, none lost).
 */
async function expectQuarantined(damaged: Buffer, readable: SessionRecord[], label: string): Promise<void> {
  const { dir, logPath } = await seededCopy();
  writeFileSync(logPath, damaged);
  const logger = recordingLogger();
  const store = new FileSessionStore({ dir, logger });
  let message = "";
  await assert.rejects(
    store.history("s1"),
    (error) => {
      message = (error as Error).message;
      return isDamaged(error);
    },
    `${label}: the load must fail loudly`,
  );
  const copies = quarantined(dir);
  assert.equal(copies.length, 1, `${label}: one quarantine copy`);
  assert.deepEqual(readFileSync(path.join(dir, copies[0]!)), damaged, `${label}: the copy holds every byte`);
  assert.ok(
    message.includes(logPath) && message.includes(copies[0]!),
    `${label}: the error names the log and the copy: ${message}`,
  );
  assert.match(message, /again/, `${label}: the error says what to do`);
  assert.ok(
    logger.lines.some(([level]) => level === "error"),
    `${label}: reported to the logger`,
  );
  assert.deepEqual(
    await new FileSessionStore({ dir }).history("s1"),
    readable,
    `${label}: the next load continues with every intact record`,
  );
  assert.equal(quarantined(dir).length, 1, `${label}: no second copy`);
}

test(
  "matrix: truncation at every byte of the last record drops only that torn record (or keeps it when only its " +
    "newline is missing)",
  async () => {
    const { dir, logPath, bytes } = await seeded();
    const lastStart = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
    for (let length = lastStart; length < bytes.length; length++) {
      writeFileSync(logPath, bytes.subarray(0, length));
      const logger = recordingLogger();
      const store = new FileSessionStore({ dir, logger });
      const expected = length === bytes.length - 1 ? RECORDS : RECORDS.slice(0, 2);
      assert.deepEqual(await store.history("s1"), expected, `cut at ${length}`);
      assert.deepEqual(
        logger.lines.filter(([level]) => level === "error"),
        [],
        `cut at ${length}: no error`,
      );
      await store.append("s1", [say("after")]);
      assert.deepEqual(
        await new FileSessionStore({ dir }).history("s1"),
        [...expected, say("after")],
        `cut at ${length}: appends continue cleanly`,
      );
    }
    assert.deepEqual(quarantined(dir), []);
  },
);

test("matrix: a tail of NUL bytes (a crash after the file grew) is a torn tail", async () => {
  const { dir, logPath, bytes } = await seeded();
  writeFileSync(logPath, Buffer.concat([bytes, Buffer.alloc(4096)]));
  assert.deepEqual(await new FileSessionStore({ dir }).history("s1"), RECORDS);
  assert.deepEqual(readFileSync(logPath), bytes);
  assert.deepEqual(quarantined(dir), []);
});

test("matrix: a bit flip at every byte fails the load, quarantines the log, and loses no intact record", async () => {
  const { bytes } = await seeded();
  const ends: number[] = [];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) ends.push(i);
  for (let i = 0; i < bytes.length; i++) {
    const damaged = Buffer.from(bytes);
    damaged[i] = damaged[i]! ^ (1 << (i % 8));
    // A record stays readable when none of its bytes changed and the newline before it is intact.
    const readable = RECORDS.filter((_, r) => {
      const start = r === 0 ? 0 : ends[r - 1]! + 1;
      return !(i >= start && i <= ends[r]!) && !(r > 0 && i === ends[r - 1]);
    });
    await expectQuarantined(damaged, readable, `flip at byte ${i}`);
  }
});

test("matrix: a CRLF-converted log still reads every record (each checksum holds), with a warning", async () => {
  const { dir, logPath, bytes } = await seeded();
  writeFileSync(logPath, bytes.toString("utf8").replaceAll("\n", "\r\n"));
  const logger = recordingLogger();
  const store = new FileSessionStore({ dir, logger });
  assert.deepEqual(await store.history("s1"), RECORDS);
  assert.ok(logger.lines.some(([level, message]) => level === "warn" && /CRLF|line endings/.test(message)));
  await store.append("s1", [say("after")]);
  assert.deepEqual(await new FileSessionStore({ dir }).history("s1"), [...RECORDS, say("after")]);
  assert.deepEqual(quarantined(dir), []);
});

test(
  "matrix: garbage appended (with or without a newline, text or " + "binary) is quarantined, never silently cut",
  async () => {
    const { bytes } = await seeded();
    const tails = [
      "garbage\n",
      "garbage",
      '{"kind":"update"}\n',
      "\u0001\u0002\u00ff binary",
      `${frameRecord(say("x")).slice(0, -1)}junk`,
      '["zzzzzzzz",',
    ];
    for (const tail of tails)
      await expectQuarantined(
        Buffer.concat([bytes, Buffer.from(tail, "latin1")]),
        RECORDS,
        `tail ${JSON.stringify(tail)}`,
      );
  },
);

test("matrix: several complete but unreadable last records are all kept (quarantined), none deleted", async () => {
  const { bytes } = await seeded();
  const bad = [1, 2, 3, 4, 5]
    .map((n) => frameRecord(say(`bad ${n}`)).replace(/^\["[0-9a-f]{8}"/, '["00000000"'))
    .join("");
  await expectQuarantined(Buffer.concat([bytes, Buffer.from(bad)]), RECORDS, "five bad last records");
});

test("matrix: a bad record in the middle is quarantined; the records around it survive", async () => {
  const lines = RECORDS.map(frameRecord);
  const damaged = Buffer.from(lines[0]! + lines[1]!.replace("zwei", "drei") + lines[2]!);
  await expectQuarantined(damaged, [RECORDS[0]!, RECORDS[2]!], "middle");
});

test("matrix: duplicated records are both valid and both kept", async () => {
  const { dir, logPath, bytes } = await seeded();
  const first = bytes.subarray(0, bytes.indexOf(0x0a) + 1);
  writeFileSync(logPath, Buffer.concat([first, bytes]));
  assert.deepEqual(await new FileSessionStore({ dir }).history("s1"), [RECORDS[0]!, ...RECORDS]);
  assert.deepEqual(quarantined(dir), []);
});

test(
  "matrix: records of an unknown kind (a newer version's) are " + "kept on disk, skipped on replay, and reported",
  async () => {
    const { dir, logPath, bytes } = await seeded();
    const future = frameValue({ kind: "checkpoint", at: 3 }) + frameValue(["not", "an", "object"]);
    writeFileSync(
      logPath,
      Buffer.concat([
        bytes.subarray(0, bytes.indexOf(0x0a) + 1),
        Buffer.from(future),
        bytes.subarray(bytes.indexOf(0x0a) + 1),
      ]),
    );
    const logger = recordingLogger();
    const store = new FileSessionStore({ dir, logger });
    assert.deepEqual(await store.history("s1"), RECORDS);
    assert.ok(
      logger.lines.some(([level, message]) => level === "warn" && /unknown kind/.test(message)),
      JSON.stringify(logger.lines),
    );
    await store.append("s1", [say("after")]);
    assert.ok(readFileSync(logPath, "utf8").includes(future), "the unknown records stay in the log, byte for byte");
    assert.deepEqual(await new FileSessionStore({ dir }).history("s1"), [...RECORDS, say("after")]);
    assert.deepEqual(quarantined(dir), []);
  },
);

const isSymlinkRefusal = (error: unknown) =>
  error instanceof RequestError &&
  (error.data as { reason?: string }).reason === "symlink" &&
  /symlink/.test(error.message);

test("matrix: a symlinked log is refused for reading and appending; its target is untouched", async () => {
  const { dir, logPath } = await seeded();
  const outside = path.join(tempDir(), "victim.txt");
  writeFileSync(outside, "precious\nno newline at the end");
  rmSync(logPath);
  symlinkSync(outside, logPath);
  const store = new FileSessionStore({ dir });
  await assert.rejects(store.history("s1"), isSymlinkRefusal);
  await assert.rejects(store.append("s1", [say("x")]), isSymlinkRefusal);
  assert.equal(readFileSync(outside, "utf8"), "precious\nno newline at the end");
});

test("matrix: a symlinked metadata file is refused by get, update and create, and skipped by list", async () => {
  const { dir, store } = await seeded();
  await store.create(session("s2"));
  const metaPath = path.join(dir, `${Buffer.from("s1").toString("hex")}.json`);
  const outside = path.join(tempDir(), "meta.json");
  writeFileSync(outside, readFileSync(metaPath));
  const before = readFileSync(outside);
  rmSync(metaPath);
  symlinkSync(outside, metaPath);
  const fresh = new FileSessionStore({ dir, logger: recordingLogger() });
  await assert.rejects(fresh.get("s1"), isSymlinkRefusal);
  await assert.rejects(fresh.update("s1", { title: "t" }), isSymlinkRefusal);
  await assert.rejects(fresh.create(session("s1")), isSymlinkRefusal);
  assert.deepEqual(
    (await fresh.list()).sessions.map((s) => s.sessionId),
    ["s2"],
  );
  assert.deepEqual(readFileSync(outside), before);
});

test("matrix: a symlinked store directory is refused; nothing is written through it", async () => {
  const real = tempDir();
  const link = path.join(tempDir(), "sessions");
  symlinkSync(real, link);
  const store = new FileSessionStore({ dir: link });
  await assert.rejects(store.create(session("s1")), isSymlinkRefusal);
  await assert.rejects(store.list(), isSymlinkRefusal);
  await assert.rejects(store.history("s1"), isSymlinkRefusal);
  assert.deepEqual(readdirSync(real), []);
});

test("a directory named like a session file neither breaks list nor passes for a log", async () => {
  const { dir, store } = await seeded();
  await store.create(session("s2"));
  mkdirSync(path.join(dir, `${Buffer.from("s3").toString("hex")}.json`));
  const logger = recordingLogger();
  const fresh = new FileSessionStore({ dir, logger });
  assert.deepEqual((await fresh.list()).sessions.map((s) => s.sessionId).sort(), ["s1", "s2"]);
  rmSync(fresh.logPath("s2")!, { force: true });
  mkdirSync(fresh.logPath("s2")!);
  await assert.rejects(
    fresh.history("s2"),
    (error) => error instanceof RequestError && /not a regular file/.test(error.message),
  );
});

test("a metadata file naming another session is refused by get and skipped by list", async () => {
  const { dir, store } = await seeded();
  const hex = (id: string) => path.join(dir, `${Buffer.from(id).toString("hex")}.json`);
  writeFileSync(hex("s9"), readFileSync(hex("s1")));
  const logger = recordingLogger();
  const fresh = new FileSessionStore({ dir, logger });
  await assert.rejects(
    fresh.get("s9"),
    (error) =>
      error instanceof RequestError &&
      (error.data as { reason?: string }).reason === "metadata_mismatch" &&
      /s1/.test(error.message),
  );
  assert.deepEqual(
    (await fresh.list()).sessions.map((s) => s.sessionId),
    ["s1"],
  );
  assert.ok(logger.lines.some(([level]) => level === "error"));
  await store.close();
});
