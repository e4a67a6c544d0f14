/**
 * Backpressure on the in-process links: the ledger, the input gate, and the three rules (drain holds, the cap
 * refuses requests and notifications but never replies, backed-up replies pause reading) on the NDJSON link, the
 * memory pair and the foreign-stream adapter. Real processes and sockets: test/e2e/backpressure*.test.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JsonRpcConnection } from "../jsonrpc/connection.js";
import { LINK, type MessageLink, type Stream } from "../jsonrpc/link.js";
import { OutputBacklogError } from "../jsonrpc/local-errors.js";
import type { AnyMessage } from "../jsonrpc/messages.js";
import { RequestError } from "../jsonrpc/request-error.js";
import { InputGate, OutputLedger, resolveMaxBufferedBytes } from "./backpressure.js";
import type { ByteSink, ByteSource, ByteSourceHandlers } from "./bytes.js";
import { createMemoryPair } from "./memory.js";
import { NdJsonLink } from "./ndjson-link.js";
import { linkFromStream } from "./stream-link.js";

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const note = (i: number, pad = 0): AnyMessage => ({
  jsonrpc: "2.0",
  method: "note",
  params: { i, pad: "x".repeat(pad) },
});
const reply = (id: number, pad = 0): AnyMessage => ({ jsonrpc: "2.0", id, result: { pad: "x".repeat(pad) } });
const request = (id: number): AnyMessage => ({ jsonrpc: "2.0", id, method: "work", params: {} });
const enc = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("OutputLedger", () => {
  it("counts what is pending and which part of it is replies, as output leaves in order", () => {
    const ledger = new OutputLedger();
    ledger.enter(10, false);
    ledger.enter(5, true);
    ledger.enter(7, false);
    ledger.enter(3, true);
    assert.equal(ledger.pending, 25);
    assert.equal(ledger.replyPending, 8);
    ledger.leave(12); // the first frame and part of the first reply
    assert.equal(ledger.replyPending, 8, "a reply still partly queued counts whole");
    ledger.leave(3);
    assert.equal(ledger.replyPending, 3);
    ledger.leaveUntil(ledger.entered);
    assert.deepEqual([ledger.pending, ledger.replyPending], [0, 0]);
    ledger.leaveUntil(1); // never goes back
    assert.equal(ledger.pending, 0);
  });

  it("stays exact over many replies (compaction), and clear() forgets everything", () => {
    const ledger = new OutputLedger();
    for (let i = 0; i < 10_000; i++) ledger.enter(2, i % 2 === 0);
    for (let i = 0; i < 9_000; i++) ledger.leave(2);
    assert.equal(ledger.replyPending, 1000);
    ledger.clear();
    assert.deepEqual([ledger.pending, ledger.replyPending], [0, 0]);
    ledger.enter(4, true);
    assert.equal(ledger.replyPending, 4);
  });

  it("maxBufferedBytes accepts a positive integer or Infinity, nothing else", () => {
    assert.equal(resolveMaxBufferedBytes(undefined), 64 * 1024 * 1024);
    assert.equal(resolveMaxBufferedBytes(Number.POSITIVE_INFINITY), Number.POSITIVE_INFINITY);
    for (const bad of [0, -1, 1.5, Number.NaN])
      assert.throws(() => resolveMaxBufferedBytes(bad), /maxBufferedBytes must be/);
  });
});

describe("InputGate", () => {
  it("pauses once for either reason and resumes only when neither holds", () => {
    const calls: string[] = [];
    const gate = new InputGate(
      () => calls.push("pause"),
      () => calls.push("resume"),
    );
    gate.reader(true);
    gate.output(true);
    gate.reader(false);
    assert.deepEqual(calls, ["pause"]);
    gate.output(false);
    assert.deepEqual(calls, ["pause", "resume"]);
    gate.output(true);
    gate.output(true);
    gate.output(false);
    assert.deepEqual(calls, ["pause", "resume", "pause", "resume"]);
  });
});

/** A byte source fed by hand that records pause and resume. */
function manualSource() {
  let handlers: ByteSourceHandlers | undefined;
  const state = { paused: false, pauses: 0 };
  const source: ByteSource = {
    start: (h) => void (handlers = h),
    pause: () => {
      state.paused = true;
      state.pauses++;
    },
    resume: () => void (state.paused = false),
    cancel: () => {},
  };
  return { source, state, push: (text: string) => handlers!.chunk(enc(text)) };
}

/** A sink whose writes complete only when the test says so (a peer that does not read). */
function heldSink() {
  const pending: Array<() => void> = [];
  let written = 0;
  const sink: ByteSink = {
    write: (text) =>
      new Promise<void>((resolve) => {
        written += text.length;
        pending.push(resolve);
      }),
    close: () => Promise.resolve(),
  };
  const completeAll = async () => {
    while (pending.length > 0) {
      pending.shift()!();
      await tick();
    }
  };
  return { sink, completeAll, written: () => written };
}

function startSilently(link: MessageLink): void {
  link.start({ message: () => {}, problem: () => {}, closed: () => {} });
}

describe("NdJsonLink backpressure", () => {
  it(
    "refuses a request or notification once maxBufferedBytes are " + "queued, with a clear error, and never a reply",
    async () => {
      const { source } = manualSource();
      const { sink, completeAll } = heldSink();
      const link = new NdJsonLink(source, sink, { writeHighWaterMark: 1024, maxBufferedBytes: 10_000 });
      startSilently(link);
      let sent = 0;
      let refused: unknown;
      for (let i = 0; i < 1000 && refused === undefined; i++) {
        try {
          link.send(note(i, 100));
          sent++;
        } catch (error) {
          refused = error;
        }
      }
      assert.ok(refused instanceof OutputBacklogError, String(refused));
      assert.equal(refused.kind, "output_backlog");
      assert.equal(refused.method, "note");
      assert.equal(refused.maxBufferedBytes, 10_000);
      assert.match(
        refused.message,
        /"note" was not sent: \d+ bytes of output are already queued for the peer, at the 10000-byte limit \(maxBufferedBytes\); the peer is not reading\. Await your sends/,
      );
      assert.ok(sent >= 10_000 / 200 && sent <= 10_000 / 100 + 1, `sent ${sent}`);
      assert.throws(() => link.send(request(1)), OutputBacklogError, "requests are refused too");
      assert.doesNotThrow(() => link.send(reply(1, 100)), "a reply is never refused");
      await tick();
      await completeAll();
      assert.doesNotThrow(() => link.send(note(-1)), "once the peer reads, sending works again");
    },
  );

  it(
    "pauses reading while replies are backed up above the " + "high-water mark, and resumes when the output drains",
    async () => {
      const { source, state, push } = manualSource();
      const { sink, completeAll } = heldSink();
      const link = new NdJsonLink(source, sink, { writeHighWaterMark: 4096 });
      link.start({
        message: (m) => link.send(reply((m as { id: number }).id, 200)),
        problem: () => {},
        closed: () => {},
      });
      for (let i = 0; i < 10; i++) push(`{"jsonrpc":"2.0","id":${i},"method":"work"}\n`);
      assert.equal(state.paused, false, "10 small replies stay under the mark");
      for (let i = 10; i < 40; i++) push(`{"jsonrpc":"2.0","id":${i},"method":"work"}\n`);
      assert.equal(state.paused, true, "the replies crossed the mark: reading is paused");
      assert.equal(link.inputHeldByOutput, true);
      await tick();
      await completeAll();
      await tick();
      assert.equal(state.paused, false, "the output drained: reading resumes");
      assert.equal(link.inputHeldByOutput, false);
    },
  );

  it(
    "does not pause reading for its own notifications, however " + "many (two streaming peers would deadlock)",
    async () => {
      const { source, state } = manualSource();
      const { sink } = heldSink();
      const link = new NdJsonLink(source, sink, { writeHighWaterMark: 1024 });
      startSilently(link);
      for (let i = 0; i < 100; i++) link.send(note(i, 100));
      assert.ok(link.pendingOutput > 10_000);
      assert.equal(state.pauses, 0);
      let drained = false;
      void link.drain().then(() => (drained = true));
      await tick();
      assert.equal(drained, false, "an awaited sender is held at the high-water mark");
    },
  );

  it("keeps the reader's own pause: output draining does not resume a reader that paused", async () => {
    const { source, state, push } = manualSource();
    const { sink, completeAll } = heldSink();
    const link = new NdJsonLink(source, sink, { writeHighWaterMark: 512 });
    link.start({
      message: (m) => link.send(reply((m as { id: number }).id, 600)),
      problem: () => {},
      closed: () => {},
    });
    push('{"jsonrpc":"2.0","id":1,"method":"work"}\n');
    assert.equal(state.paused, true);
    link.pauseInput(); // the web reader's queue is full too
    await tick();
    await completeAll();
    await tick();
    assert.equal(state.paused, true, "still paused for the reader");
    link.resumeInput();
    assert.equal(state.paused, false);
  });
});

describe("memory pair backpressure", () => {
  it(
    "drain() waits while a peer that does not read holds what " + "was sent, and the cap refuses notifications",
    async () => {
      const [left, right] = createMemoryPair({ writeHighWaterMark: 2048, maxBufferedBytes: 20_000 });
      const reader = right.readable.getReader(); // taken, not read: its queue fills, then the link stops delivering
      const leftLink = left[LINK]!;
      startSilently(leftLink);
      let refused: unknown;
      let sent = 0;
      for (let i = 0; i < 1000 && refused === undefined; i++) {
        try {
          leftLink.send(note(i, 100));
          sent++;
        } catch (error) {
          refused = error;
        }
        if (i % 10 === 0) await tick(); // let the memory link deliver into the reader's queue
      }
      assert.ok(refused instanceof OutputBacklogError, String(refused));
      let drained = false;
      void leftLink.drain().then(() => (drained = true));
      await tick();
      assert.equal(drained, false);
      let read = 0;
      while (read < sent) {
        const { done } = await reader.read();
        assert.equal(done, false);
        read++;
      }
      await tick();
      assert.equal(drained, true, "the peer took everything: drain resolves");
    },
  );

  it("an engine whose replies are not taken stops taking requests, so a flood of requests is held", async () => {
    const [agentSide, clientSide] = createMemoryPair({ writeHighWaterMark: 8192 });
    let handled = 0;
    new JsonRpcConnection(agentSide[LINK]!, {
      request: () => {
        handled++;
        return { pad: "y".repeat(500) };
      },
      notification: () => {},
    });
    const reader = clientSide.readable.getReader(); // the client never reads, for now
    const writer = clientSide.writable.getWriter();
    for (let i = 0; i < 1000; i++) void writer.write(request(i));
    for (let i = 0; i < 20; i++) await tick();
    assert.ok(handled < 200, `the agent handled ${handled} of 1000 requests while its replies were not read`);
    let answers = 0;
    while (answers < 1000) {
      const { done } = await reader.read();
      assert.equal(done, false);
      answers++;
    }
    assert.equal(handled, 1000, "once the client reads, every request is answered");
  });
});

describe("foreign stream adapter backpressure", () => {
  /** A foreign stream whose writes never complete, and whose readable is fed by hand. */
  function foreignStream() {
    let controller!: ReadableStreamDefaultController<AnyMessage>;
    const writes: AnyMessage[] = [];
    const readable = new ReadableStream<AnyMessage>({ start: (c) => void (controller = c) }, { highWaterMark: 0 });
    const release: Array<() => void> = [];
    const writable = new WritableStream<AnyMessage>(
      { write: (m) => new Promise<void>((resolve) => (writes.push(m), release.push(resolve))) },
      { highWaterMark: 1_000_000 },
    );
    const stream: Stream = { readable, writable };
    return { stream, controller, writes, releaseAll: () => release.splice(0).forEach((r) => r()) };
  }

  it("refuses notifications at the cap and pauses reading while replies wait", async () => {
    const foreign = foreignStream();
    const link = linkFromStream(foreign.stream, { writeHighWaterMark: 2048, maxBufferedBytes: 30_000 });
    const got: unknown[] = [];
    link.start({
      message: (m) => (got.push(m), link.send(reply((m as { id: number }).id, 1000))),
      problem: () => {},
      closed: () => {},
    });
    for (let i = 0; i < 10; i++) foreign.controller.enqueue(request(i));
    for (let i = 0; i < 20; i++) await tick();
    assert.ok(got.length <= 4, `read ${got.length} requests while its replies waited`);
    assert.throws(() => {
      for (let i = 0; i < 1000; i++) link.send(note(i, 100));
    }, OutputBacklogError);
    foreign.releaseAll();
    for (let i = 0; i < 5000 && got.length < 10; i++) {
      await tick();
      foreign.releaseAll();
    }
    assert.equal(got.length, 10, "reading resumes once the writes settle");
  });
});

describe("the engine surfaces the cap", () => {
  it("an un-awaited notify() rejects with OutputBacklogError; an awaited one waits instead", async () => {
    const { source } = manualSource();
    const { sink, completeAll } = heldSink();
    const link = new NdJsonLink(source, sink, { writeHighWaterMark: 1024, maxBufferedBytes: 50_000 });
    const connection = new JsonRpcConnection(link, {
      request: () => RequestError.methodNotFound("x"),
      notification: () => {},
    });
    const refused: unknown[] = [];
    let delivered = 0;
    const sends = Array.from({ length: 1000 }, (_, i) =>
      connection.notify("note", { i, pad: "x".repeat(100) }).then(
        () => void delivered++,
        (error: unknown) => void refused.push(error),
      ),
    );
    await tick();
    assert.ok(refused.length > 500, `${refused.length} refused`);
    assert.ok(refused.every((error) => error instanceof OutputBacklogError));
    assert.ok(
      delivered < 10,
      `only the sends made below the high-water mark resolved (${delivered}); the others wait for the peer`,
    );
    assert.ok(link.pendingOutput <= 50_000 + 200, `queued ${link.pendingOutput}`);
    await completeAll();
    await Promise.all(sends);
    assert.equal(delivered + refused.length, 1000);
    assert.equal(connection.isClosed, false, "the connection stays up");
  });
});
