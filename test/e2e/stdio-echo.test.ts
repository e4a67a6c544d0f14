import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { LINK, type FrameProblem, type MessageLink } from "../../src/jsonrpc/link.js";
import type { AnyMessage } from "../../src/jsonrpc/messages.js";
import { childProcessStream } from "../../src/node/stdio/child.js";

// Compiled: dist/test/e2e/fixtures/stdio-echo.js. From source (tsx): the .ts file, run through tsx.
const fromSource = import.meta.url.endsWith(".ts");
const fixture = fileURLToPath(new URL(`./fixtures/stdio-echo.${fromSource ? "ts" : "js"}`, import.meta.url));

interface Echo {
  child: ChildProcess;
  link: MessageLink;
  messages: unknown[];
  problems: FrameProblem[];
  closed: Promise<unknown>;
  /** Resolves once `count` messages have arrived. */
  waitFor(count: number): Promise<void>;
}

function startEcho(): Echo {
  const child = spawn(process.execPath, [...(fromSource ? ["--import", "tsx"] : []), fixture, "--serve"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const link = childProcessStream(child, { maxMessageBytes: 16 * 1024 * 1024 })[LINK]!;
  const messages: unknown[] = [];
  const problems: FrameProblem[] = [];
  let waiting: { count: number; resolve: () => void } | undefined;
  let onClosed!: (cause: unknown) => void;
  const closed = new Promise<unknown>((resolve) => (onClosed = resolve));
  link.start({
    message(value) {
      messages.push(value);
      if (waiting && messages.length >= waiting.count) waiting.resolve();
    },
    problem: (p) => problems.push(p),
    closed: (cause) => onClosed(cause),
  });
  const waitFor = (count: number): Promise<void> =>
    messages.length >= count
      ? Promise.resolve()
      : Promise.race([
          new Promise<void>((resolve) => (waiting = { count, resolve })),
          closed.then((cause) => Promise.reject(new Error(`echo ended after ${messages.length} messages`, { cause }))),
        ]);
  return { child, link, messages, problems, closed, waitFor };
}

async function stop(echo: Echo): Promise<number | null> {
  const exited = echo.child.exitCode !== null ? Promise.resolve() : once(echo.child, "exit");
  await echo.link.close();
  await exited;
  return echo.child.exitCode;
}

const note = (i: number, text = ""): AnyMessage => ({ jsonrpc: "2.0", method: "note", params: { i, text } });

describe("stdio echo over real pipes", () => {
  it("echoes many messages in order, and the agent exits by itself when its stdin ends", async () => {
    const echo = startEcho();
    const count = 20_000;
    for (let i = 0; i < count; i++) {
      echo.link.send(note(i, "hello"));
      if (i % 1000 === 999) await echo.link.drain();
    }
    await echo.waitFor(count);
    assert.deepEqual(
      echo.messages,
      Array.from({ length: count }, (_, i) => note(i, "hello")),
    );
    assert.equal(await stop(echo), 0);
    assert.equal(await echo.closed, undefined);
  });

  it("echoes 5 MiB messages and UTF-8 intact", async () => {
    const echo = startEcho();
    const big = 'é你😀a\u2028b\\"\n'.repeat((5 * 1024 * 1024) / 16);
    const sent = [note(1, big), note(2, "é"), note(3, "你好, 世界"), note(4, "😀🎉"), note(5, big.slice(0, 70_001))];
    for (const m of sent) echo.link.send(m);
    await echo.waitFor(sent.length);
    assert.deepEqual(echo.messages, sent);
    assert.deepEqual(echo.problems, []);
    await stop(echo);
  });

  it("reports frames the agent could not read, and the connection survives", async () => {
    const echo = startEcho();
    (echo.child.stdin as NodeJS.WritableStream).write('{not json\n{"jsonrpc":"2.0","method":"after"}\n');
    await echo.waitFor(2);
    const [problem, after] = echo.messages as [{ params: FrameProblem }, unknown];
    assert.equal(problem.params.kind, "parse");
    assert.deepEqual(after, { jsonrpc: "2.0", method: "after" });
    await stop(echo);
  });

  it("delivers closed() when the agent is killed mid-stream, with no unhandled error", async () => {
    const echo = startEcho();
    let sending = true;
    const pump = (async () => {
      for (let i = 0; sending; i++) {
        echo.link.send(note(i, "x".repeat(1000)));
        if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await echo.waitFor(100);
    echo.child.kill("SIGKILL");
    await echo.closed; // a clean end of its stdout, or the EPIPE that came first
    for (let i = 0; i < 1000; i++) echo.link.send(note(i)); // dropped silently: no throw, no EPIPE crash
    sending = false;
    await pump;
    await echo.link.close();
    assert.equal(echo.child.signalCode ?? (await once(echo.child, "exit"))[1], "SIGKILL");
  });

  it("reports a spawn failure as closed(error)", async () => {
    const child = spawn("acpkit-no-such-command", [], { stdio: ["pipe", "pipe", "inherit"] });
    const link = childProcessStream(child)[LINK]!;
    const cause = await new Promise<unknown>((resolve) => link.start({ message() {}, problem() {}, closed: resolve }));
    assert.equal((cause as NodeJS.ErrnoException).code, "ENOENT");
    link.send(note(1));
    await link.close();
  });
});
