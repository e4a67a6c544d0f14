import assert from "node:assert/strict";
import { test } from "node:test";
import { createMemoryByteStreams, createMemoryPair } from "../transports/memory.js";
import { ndJsonStream } from "../transports/ndjson.js";
import { JsonRpcConnection } from "./connection.js";
import { LINK, type MessageLink } from "./link.js";
import { RequestError } from "./request-error.js";
import type { TapEvent } from "./tap.js";

const enc = (text: string) => new TextEncoder().encode(text);

/** Our connection on one end of an in-memory byte pipe; the other end written and read raw. */
function overBytes(handler: (method: string) => unknown) {
  const [ours, theirs] = createMemoryByteStreams();
  const link = ndJsonStream(ours.output, ours.input)[LINK]!;
  const connection = new JsonRpcConnection(link, { request: (method) => handler(method), notification: () => {} });
  const events: TapEvent[] = [];
  connection.tap((event) => events.push(event));
  const writer = theirs.output.getWriter();
  const reader = theirs.input.getReader();
  let buffered = "";
  const decoder = new TextDecoder();
  const nextLine = async (): Promise<string> => {
    for (;;) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the connection ended");
      buffered += decoder.decode(value, { stream: true });
    }
  };
  return { connection, events, write: (text: string) => writer.write(enc(`${text}\n`)), nextLine };
}

test("an id beyond 2^53 is echoed with its exact text: result, error, and in the tap as rawId", async () => {
  const peer = overBytes((method) => {
    if (method === "fail") throw new RequestError(-32000, "no");
    return { ok: true };
  });
  await peer.write('{"jsonrpc":"2.0","id":12345678901234567890123,"method":"ok"}');
  assert.equal(await peer.nextLine(), '{"jsonrpc":"2.0","id":12345678901234567890123,"result":{"ok":true}}');
  await peer.write('{"jsonrpc":"2.0","id":-9007199254740993,"method":"fail"}');
  assert.equal(
    await peer.nextLine(),
    '{"jsonrpc":"2.0","id":-9007199254740993,"error":{"code":-32000,"message":"no"}}',
  );
  await peer.write('{"jsonrpc":"2.0","id":7,"method":"ok"}');
  assert.equal(await peer.nextLine(), '{"jsonrpc":"2.0","id":7,"result":{"ok":true}}', "common ids untouched");
  const first = peer.events.filter((event) => "message" in event).slice(0, 2);
  assert.deepEqual(
    first.map((event) => [event.direction, "rawId" in event ? event.rawId : undefined]),
    [
      ["in", "12345678901234567890123"],
      ["out", "12345678901234567890123"],
    ],
  );
  peer.connection.close();
});

test("the in-memory pair keeps exact ids too", async () => {
  const [a, b] = createMemoryPair();
  const server = new JsonRpcConnection(b[LINK]!, { request: () => "pong", notification: () => {} });
  const raw = a[LINK] as MessageLink;
  const replies: Array<{ value: unknown; rawId: string | undefined }> = [];
  const got = new Promise<void>((resolve) =>
    raw.start({
      message: (value, rawId) => {
        replies.push({ value, rawId });
        resolve();
      },
      problem: () => {},
      closed: () => {},
    }),
  );
  raw.send({ jsonrpc: "2.0", id: Number("9007199254740993"), method: "ping" }, "9007199254740993");
  await got;
  assert.equal(replies[0]!.rawId, "9007199254740993");
  server.close();
});
