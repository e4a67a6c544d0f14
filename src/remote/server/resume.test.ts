/**
 * Resumable streams through `AcpServer.handleRequest` on the in-memory backend: every SSE event has an id; a GET with
 * `Last-Event-ID` resumes right after it (no gap, no duplicate), taking the stream over from a reader still there;
 * a GET without it behaves as before; every refusal has its status and says what to do.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { AcpServer } from "./acp-server.js";
import { getStream, initialize, openStream, post, send, type SseEvent, type SseReader } from "./testing/http-client.js";
import { testAgent } from "./testing/test-agent.js";

const prompt = (id: number, sessionId: string, text: string) => ({
  jsonrpc: "2.0",
  id,
  method: "session/prompt",
  params: { sessionId, prompt: [{ type: "text", text }] },
});

async function withSession(options: { maxRetainedBytes?: number } = {}) {
  const { app } = testAgent();
  const acp = new AcpServer({ agent: app, ...options });
  const { connectionId } = await initialize(acp);
  const conn = await openStream(acp, connectionId);
  await post(acp, connectionId, { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/", mcpServers: [] } });
  const created = await conn.nextEvent();
  const sessionId = created!.data.result.sessionId as string;
  return { acp, connectionId, conn, created: created!, sessionId };
}

/** Reads events until the prompt response with `id` (included). */
async function untilResponse(reader: SseReader, id: number): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for (;;) {
    const event = await reader.nextEvent();
    assert.ok(event, `the stream ended before the response to ${id}; got ${events.length} events`);
    events.push(event);
    if (event.data.id === id && "result" in event.data) return events;
  }
}

const chunkTexts = (events: SseEvent[]) =>
  events.filter((e) => e.data.method === "session/update").map((e) => e.data.params.update.content.text as string);

test("every event has an id: increasing along each stream, unique across the connection's streams", async () => {
  const { acp, connectionId, conn, created, sessionId } = await withSession();
  const stream = await openStream(acp, connectionId, sessionId);
  assert.equal((await post(acp, connectionId, prompt(2, sessionId, "stream 5"), sessionId)).status, 202);
  const events = await untilResponse(stream, 2);
  assert.equal(events.length, 6);
  const ids = events.map((e) => Number(e.id));
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, `ids increase: ${ids.join(",")}`);
  assert.ok(!ids.includes(Number(created.id)), "the connection stream's id is not reused on the session stream");
  assert.match(created.id!, /^\d+$/);
  await stream.cancel();
  await conn.cancel();
  await acp.close();
});

test("Last-Event-ID resumes right after its event: no gap, no duplicate, on this stream only", async () => {
  const { acp, connectionId, conn, sessionId } = await withSession();
  let reader = await openStream(acp, connectionId, sessionId);
  assert.equal((await post(acp, connectionId, prompt(2, sessionId, "stream 300"), sessionId)).status, 202);
  const received: SseEvent[] = [];
  // Read in pieces, each time dropping the response (as a break would) and resuming from the last event received.
  for (const piece of [40, 1, 75, 100]) {
    for (let i = 0; i < piece; i++) received.push((await reader.nextEvent())!);
    const last = reader.lastId!;
    await reader.cancel();
    reader = await openStream(acp, connectionId, sessionId, last);
  }
  received.push(...(await untilResponse(reader, 2)));
  assert.deepEqual(
    chunkTexts(received),
    Array.from({ length: 300 }, (_, i) => `chunk ${i}`),
  );
  const ids = received.map((e) => Number(e.id));
  assert.equal(new Set(ids).size, ids.length, "no event twice");
  await reader.cancel();
  await conn.cancel();
  await acp.close();
});

test("Last-Event-ID takes the stream over from a reader still attached; that reader's response ends", async () => {
  const { acp, connectionId, conn, sessionId } = await withSession();
  const first = await openStream(acp, connectionId, sessionId);
  await post(acp, connectionId, prompt(2, sessionId, "stream 10"), sessionId);
  const seen = [(await first.nextEvent())!, (await first.nextEvent())!];
  // Without Last-Event-ID, a second reader is refused as before.
  const refused = await getStream(acp, connectionId, sessionId);
  assert.equal(refused.status, 409);
  assert.match(await refused.text(), /one reader per stream.*Last-Event-ID/);
  const second = await openStream(acp, connectionId, sessionId, seen[1]!.id);
  // The first response ends once it has nothing more in hand (what it had already taken may still be in its body).
  while ((await first.nextEvent()) !== undefined);
  const rest = await untilResponse(second, 2);
  assert.deepEqual(
    chunkTexts([...seen, ...rest]),
    Array.from({ length: 10 }, (_, i) => `chunk ${i}`),
  );
  await second.cancel();
  await conn.cancel();
  await acp.close();
});

test("without Last-Event-ID a reader starts after what earlier readers took (what it had in flight is not resent)", async () => {
  const { acp, connectionId, conn, sessionId } = await withSession();
  const first = await openStream(acp, connectionId, sessionId);
  await post(acp, connectionId, prompt(2, sessionId, "stream 3"), sessionId);
  await untilResponse(first, 2);
  await first.cancel();
  await post(acp, connectionId, prompt(3, sessionId, "hello"), sessionId);
  const second = await openStream(acp, connectionId, sessionId);
  const events = await untilResponse(second, 3);
  assert.deepEqual(chunkTexts(events), ["echo hello"]);
  await second.cancel();
  await conn.cancel();
  await acp.close();
});

test("refusals: a malformed cursor and one ahead of the stream 400, one no longer kept 410, an ended connection 404", async () => {
  const { acp, connectionId, conn, created, sessionId } = await withSession({ maxRetainedBytes: 300 });
  const reader = await openStream(acp, connectionId, sessionId);
  await post(acp, connectionId, prompt(2, sessionId, "stream 50"), sessionId);
  const events = await untilResponse(reader, 2);
  await reader.cancel();

  const malformed = await getStream(acp, connectionId, sessionId, "abc");
  assert.equal(malformed.status, 400);
  assert.match(await malformed.text(), /Bad Request: Last-Event-ID "abc" is not an event id/);

  const lastId = Number(events.at(-1)!.id);
  const ahead = await getStream(acp, connectionId, sessionId, String(lastId + 1000));
  assert.equal(ahead.status, 400);
  assert.match(await ahead.text(), new RegExp(`its last event is ${lastId}`));

  const expired = await getStream(acp, connectionId, sessionId, events[0]!.id);
  assert.equal(expired.status, 410);
  assert.match(await expired.text(), /^Gone: the events after Last-Event-ID \d+ are no longer kept.*session\/load/);

  // The connection stream keeps its own events: its last one is a valid cursor there (nothing after it yet).
  await conn.cancel();
  const resumed = await getStream(acp, connectionId, undefined, created.id);
  assert.equal(resumed.status, 200);
  await resumed.body!.cancel();

  const deleted = await send(acp, { method: "DELETE", headers: { "acp-connection-id": connectionId } });
  assert.equal(deleted.status, 202);
  const gone = await getStream(acp, connectionId, sessionId, events.at(-1)!.id);
  assert.equal(gone.status, 404);
  await acp.close();
});

test("a session stream left by its reader keeps its events for a resume, without counting as buffering output", async () => {
  const { app } = testAgent();
  const acp = new AcpServer({ agent: app, maxBufferedSessionStreams: 1 });
  const { connectionId } = await initialize(acp);
  const conn = await openStream(acp, connectionId);
  const sessions: string[] = [];
  for (let i = 0; i < 4; i++) {
    await post(acp, connectionId, {
      jsonrpc: "2.0",
      id: i,
      method: "session/new",
      params: { cwd: "/", mcpServers: [] },
    });
    sessions.push((await conn.next()).result.sessionId);
  }
  const lastIds: string[] = [];
  for (const [i, sessionId] of sessions.entries()) {
    const stream = await openStream(acp, connectionId, sessionId);
    await post(acp, connectionId, prompt(10 + i, sessionId, "stream 2"), sessionId);
    const events = await untilResponse(stream, 10 + i);
    lastIds.push(events[0]!.id!);
    await stream.cancel();
  }
  // Four sessions hold only events already read: not output waiting for a stream (maxBufferedSessionStreams is 1).
  for (const [i, sessionId] of sessions.entries()) {
    const stream = await openStream(acp, connectionId, sessionId, lastIds[i]);
    const events = await untilResponse(stream, 10 + i);
    assert.deepEqual(chunkTexts(events), ["chunk 1"], `session ${sessionId} resumes after its first chunk`);
    await stream.cancel();
  }
  assert.equal(acp.connectionCount, 1, "the connection is still open");
  await conn.cancel();
  await acp.close();
});
