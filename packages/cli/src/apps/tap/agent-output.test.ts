import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { openAgentOutput, SlabWindows } from "./agent-output.js";

test("slab windows: a window starts where the last read ended, a new slab comes once less than 64 KiB is left", () => {
  const slabs = new SlabWindows(256 * 1024);
  const first = slabs.window();
  assert.equal(first.length, 256 * 1024);
  first.fill(1, 0, 100_000);
  const a = slabs.take(first, 100_000);
  const second = slabs.window();
  assert.equal(second.buffer, first.buffer, "the same slab");
  assert.equal(second.byteOffset, first.byteOffset + 100_000);
  second.fill(2, 0, 100_000);
  const b = slabs.take(second, 100_000);
  // 56 KiB left: too little for a read, so a new slab; what was taken is never written over.
  const third = slabs.window();
  assert.notEqual(third.buffer, first.buffer);
  third.fill(3);
  assert.ok(a.every((byte) => byte === 1) && b.every((byte) => byte === 2));
  assert.equal(a.length + b.length, 200_000);
});

test("slab windows: one read brings at most 1 MiB, even from a larger slab", () => {
  const slabs = new SlabWindows(8 * 1024 * 1024);
  assert.equal(slabs.window().length, 1024 * 1024);
});

test(
  "a real agent's output arrives whole and in order, each chunk a view that later reads leave intact; " +
    "returning false pauses reading until resume(); the end comes when the agent exits",
  { skip: process.platform === "win32" && "Unix sockets", timeout: 30_000 },
  async () => {
    const chunks: Uint8Array[] = [];
    let paused = 0;
    const output = await openAgentOutput((chunk) => {
      chunks.push(chunk);
      // Hold the reader back twice for a moment: the agent must wait, and nothing may be lost meanwhile.
      if (chunks.length === 2 || chunks.length === 20) {
        paused++;
        setTimeout(() => output!.tapEnd.resume(), 100);
        return false;
      }
      return true;
    });
    assert.ok(output, "a pair of sockets");
    const lines = 100_000;
    // Each line carries its index, so a lost, repeated, reordered or overwritten piece shows.
    const agent = spawn(
      process.execPath,
      [
        "-e",
        `let i = 0; const n = ${lines}; (function more() { while (i < n) { const batch = []; ` +
          `for (let j = 0; j < 500 && i < n; j++) batch.push("line " + i++ + " " + "x".repeat(i % 97)); ` +
          `if (!process.stdout.write(batch.join("\\n") + "\\n")) return process.stdout.once("drain", more); } })();`,
      ],
      { stdio: ["ignore", output.agentEnd, "inherit"] },
    );
    output.agentEnd.destroy();
    const ended = once(output.tapEnd, "end");
    // The tap's end comes paused: nothing is read until it resumes.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(chunks.length, 0, "nothing read while paused");
    output.tapEnd.resume();
    const [code] = (await once(agent, "exit")) as [number];
    assert.equal(code, 0);
    await ended;
    const text = Buffer.concat(chunks).toString("utf8");
    const got = text.split("\n");
    assert.equal(got.pop(), "");
    assert.equal(got.length, lines);
    for (let i = 0; i < lines; i++) assert.equal(got[i], `line ${i} ${"x".repeat((i + 1) % 97)}`);
    assert.equal(paused, 2);
    assert.ok(chunks.length > 20, `${chunks.length} reads`);
    output.tapEnd.destroy();
  },
);
