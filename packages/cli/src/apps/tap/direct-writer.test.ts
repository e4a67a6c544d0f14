import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { test } from "node:test";
import { DirectWriter } from "./direct-writer.js";

const WRITER = new URL("./direct-writer.js", import.meta.url).href;

/** A child process whose stdout is a pipe to this one, writing `chunks` chunks of `size` bytes through a DirectWriter. */
function writer(chunks: number, size = 65536) {
  const code =
    `import { DirectWriter } from ${JSON.stringify(WRITER)};\n` +
    `const writer = new DirectWriter(process.stdout, process.stdout.fd);\n` +
    `let i = 0;\n` +
    `function more() {\n` +
    `  while (i < ${chunks}) {\n` +
    `    const chunk = Buffer.alloc(${size}, i % 251);\n` +
    `    chunk.writeUInt32BE(i++);\n` +
    `    if (!writer.write(chunk)) return process.stdout.once("drain", more);\n` +
    `  }\n` +
    `  process.stderr.write(JSON.stringify({ queued: writer.queued, failed: writer.failed }));\n` +
    `}\n` +
    `process.stdout.on("error", () => more());\n` +
    `more();\n`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = once(child, "close").then(() => JSON.parse(stderr) as { queued: number; failed: boolean });
  return { child, exited };
}

for (const size of [65536, 4096]) {
  test(`a reader that falls behind: what the descriptor refused waits in the stream, and nothing overtakes it (${size} B chunks)`, async () => {
    const chunks = (8 * 1024 * 1024) / size;
    const run = writer(chunks, size);
    run.child.stdout.pause();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const received: Buffer[] = [];
    run.child.stdout.on("data", (chunk: Buffer) => received.push(chunk));
    run.child.stdout.resume();
    const { queued, failed } = await run.exited;
    const all = Buffer.concat(received);
    assert.equal(all.length, chunks * size);
    for (let i = 0; i < chunks; i++) {
      const chunk = all.subarray(i * size, (i + 1) * size);
      assert.equal(chunk.readUInt32BE(0), i, `chunk ${i} in its place`);
      assert.ok(
        chunk.subarray(4).every((byte) => byte === i % 251),
        `chunk ${i} whole`,
      );
    }
    assert.ok(queued > 0, "the paused reader made the descriptor refuse some");
    assert.equal(failed, false);
  });
}

test("a reader that left (EPIPE): the writer gives up without an error and drops the rest", async () => {
  const run = writer(256);
  await once(run.child.stdout, "readable");
  run.child.stdout.destroy();
  const { failed } = await run.exited;
  assert.equal(failed, true);
  assert.equal(run.child.exitCode, 0);
});

test("what others queued on the stream first leaves first: the descriptor is written to only once the stream is empty", async () => {
  const dir = mkdtempSync(join(tmpdir(), "acpkit-direct-"));
  const path = join(dir, "out");
  const fd = openSync(path, "w");
  // A stream in front of the same file that takes a while with each write, as a pipe's stream does when it is full.
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      setTimeout(() => {
        writeSync(fd, chunk);
        callback();
      }, 20);
    },
  });
  stream.write("first|");
  const writer = new DirectWriter(stream, fd);
  assert.equal(writer.write(Buffer.from("second|")), true);
  assert.equal(writer.queued, 1);
  while (stream.writableLength > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(writer.write(Buffer.from("third|")), true);
  assert.equal(writer.queued, 1, "the stream was empty again: straight to the descriptor");
  closeSync(fd);
  assert.equal(readFileSync(path, "utf8"), "first|second|third|");
  rmSync(dir, { recursive: true, force: true });
});
