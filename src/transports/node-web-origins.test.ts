import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { PassThrough, Readable, Writable } from "node:stream";
import { webByteSink, webByteSource, type ByteSourceHandlers } from "./bytes.js";
import { installNodeWebOrigins, nodeWritableOf, takeNodeReadable } from "./node-web-origins.js";

installNodeWebOrigins();

const toWebReadable = (node: Readable): ReadableStream<Uint8Array> =>
  Readable.toWeb(node) as unknown as ReadableStream<Uint8Array>;
const toWebWritable = (node: Writable): WritableStream<Uint8Array> =>
  Writable.toWeb(node) as unknown as WritableStream<Uint8Array>;

interface Seen {
  chunks: Uint8Array[];
  ended: Promise<"end" | unknown>;
}

function collect(source: ReturnType<typeof webByteSource>, onChunk?: (bytes: Uint8Array) => void): Seen {
  const chunks: Uint8Array[] = [];
  let settle!: (value: "end" | unknown) => void;
  const ended = new Promise<"end" | unknown>((resolve) => (settle = resolve));
  const handlers: ByteSourceHandlers = {
    chunk(bytes) {
      chunks.push(bytes);
      onChunk?.(bytes);
    },
    end: () => settle("end"),
    error: (cause) => settle(cause),
  };
  source.start(handlers);
  return { chunks, ended };
}

const text = (chunks: Uint8Array[]): string => Buffer.concat(chunks).toString("utf8");

describe("streams made by Readable.toWeb", () => {
  it("are read from their Node stream: the chunks Node read, not copies, then the end", async () => {
    const node = new PassThrough();
    const web = toWebReadable(node);
    const seen = collect(webByteSource(web));
    const first = Buffer.from("one\n");
    node.write(first);
    node.end("two\n");
    assert.equal(await seen.ended, "end");
    assert.equal(text(seen.chunks), "one\ntwo\n");
    assert.equal(seen.chunks[0]!.buffer, first.buffer, "the Node chunk itself reached the handler");
    assert.equal(web.locked, true, "the web stream is locked while read, as a reader would");
  });

  it("fall back to the web stream once it delivered data, and lose nothing", async () => {
    const node = new PassThrough();
    const web = toWebReadable(node);
    node.write("early\n");
    await new Promise((resolve) => setImmediate(resolve)); // the adapter queued it in the web stream
    assert.equal(takeNodeReadable(web), undefined);
    const seen = collect(webByteSource(web));
    node.end("late\n");
    assert.equal(await seen.ended, "end");
    assert.equal(text(seen.chunks), "early\nlate\n");
  });

  it("are not taken over when the Node stream gives text (an encoding) or is locked", () => {
    const decoded = new PassThrough();
    decoded.setEncoding("utf8");
    assert.equal(takeNodeReadable(toWebReadable(decoded)), undefined);
    const locked = toWebReadable(new PassThrough());
    locked.getReader();
    assert.equal(takeNodeReadable(locked), undefined);
    const plain = new ReadableStream<Uint8Array>();
    assert.equal(takeNodeReadable(plain), undefined);
  });

  it("report the Node stream's error, and a premature close as the web path does (AbortError)", async () => {
    const failing = new PassThrough();
    const seenError = collect(webByteSource(toWebReadable(failing)));
    const boom = new Error("boom");
    failing.destroy(boom);
    assert.equal(await seenError.ended, boom);

    const closed = new PassThrough();
    const seenClose = collect(webByteSource(toWebReadable(closed)));
    closed.destroy();
    const cause = await seenClose.ended;
    assert.ok(cause instanceof Error && cause.name === "AbortError", `got ${String(cause)}`);
  });

  it("pause and resume the Node stream, and a cancel destroys it", async () => {
    const node = new PassThrough();
    const source = webByteSource(toWebReadable(node));
    const seen = collect(source, () => source.pause());
    node.write("a\n");
    await new Promise((resolve) => setImmediate(resolve));
    node.write("b\n");
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(text(seen.chunks), "a\n", "nothing more while paused");
    assert.equal(node.isPaused(), true);
    source.resume();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(text(seen.chunks), "a\nb\n");
    source.cancel();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(node.destroyed, true);
  });

  it("end with the error a chunk handler throws, and deliver nothing after it", async () => {
    const node = new PassThrough();
    const thrown = new Error("handler failed");
    const seen = collect(webByteSource(toWebReadable(node)), () => {
      throw thrown;
    });
    node.write("x\n");
    assert.equal(await seen.ended, thrown);
    node.write("y\n");
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(seen.chunks.length, 1);
  });
});

describe("streams made by Writable.toWeb", () => {
  function recorder(): { node: Writable; written: () => string } {
    const parts: Buffer[] = [];
    const node = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        parts.push(chunk);
        callback();
      },
    });
    return { node, written: () => Buffer.concat(parts).toString("utf8") };
  }

  it("are written through their Node stream, text as UTF-8, and released when idle", async () => {
    const { node, written } = recorder();
    const web = toWebWritable(node);
    assert.equal(nodeWritableOf(web), node);
    const sink = webByteSink(web, { closeOutput: false });
    await sink.write("é one\n");
    await sink.write(new TextEncoder().encode("two\n"));
    assert.equal(written(), "é one\ntwo\n");
    sink.idle?.();
    assert.equal(web.locked, false, "the owner may use or close the stream between bursts");
  });

  it("keep the owner's queued writes first, and refuse writes after the owner closed it, as the web path does", async () => {
    const { node, written } = recorder();
    const web = toWebWritable(node);
    const owner = web.getWriter();
    const theirs = owner.write(new TextEncoder().encode("theirs\n"));
    owner.releaseLock();
    const sink = webByteSink(web, { closeOutput: false });
    await Promise.all([theirs, sink.write("ours\n")]);
    assert.equal(written(), "theirs\nours\n");
    sink.idle?.();
    await web.close();
    // Through the web stream, which refuses it (Node 20 throws an internal assertion there, later releases a TypeError).
    await assert.rejects(async () => sink.write("late\n"));
    assert.equal(written(), "theirs\nours\n");
  });

  it("report a failed write of the Node stream", async () => {
    const failure = new Error("disk full");
    const node = new Writable({ write: (_chunk, _encoding, callback) => callback(failure) });
    node.on("error", () => {});
    const sink = webByteSink(toWebWritable(node), { closeOutput: false });
    await assert.rejects(sink.write("x\n"), failure);
  });
});

describe("installNodeWebOrigins", () => {
  it("does not load node:stream for an import of acpkit, and wraps toWeb once a later ndJsonStream finds it loaded", () => {
    // A fresh process: this test file has node:stream loaded already.
    const ndjson = new URL("./ndjson.js", import.meta.url).href;
    const script = `
      const { ndJsonStream } = await import(${JSON.stringify(ndjson)});
      const loadedAtImport = process.moduleLoadList.includes("NativeModule stream");
      const { Readable } = process.getBuiltinModule("node:stream");
      const before = Readable.toWeb[Symbol.for("acpkit.nodeWebOrigins.wrapped")] === true;
      ndJsonStream(new WritableStream(), new ReadableStream());
      const after = Readable.toWeb[Symbol.for("acpkit.nodeWebOrigins.wrapped")] === true;
      process.stdout.write(JSON.stringify({ loadedAtImport, before, after }));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    assert.deepEqual(JSON.parse(out), { loadedAtImport: false, before: false, after: true });
  });
});
