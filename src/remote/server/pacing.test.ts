import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryStreams, PACE_HIGH_WATER_CHARS } from "./backend/memory-streams.js";
import { resolveLimits } from "./limits.js";
import type { ConnectionLimitError } from "./output-sink.js";
import { PACE_HIGH_WATER_BYTES, WebSocketOutbound } from "./websocket-outbound.js";
import type { ServerWebSocket } from "./server-websocket.js";

/** Whether `promise` settled once pending callbacks and a macrotask ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

/** A socket that keeps what is sent until the test drains it. */
function heldSocket() {
  let drained: Array<() => void> = [];
  const socket = {
    bufferedAmount: 0,
    readyState: 1,
    send(data: string) {
      socket.bufferedAmount += data.length;
    },
    close() {},
    whenDrained: () => new Promise<void>((resolve) => drained.push(resolve)),
    drain() {
      socket.bufferedAmount = 0;
      const waiting = drained;
      drained = [];
      for (const resolve of waiting) resolve();
    },
  };
  return socket;
}

const text = (chars: number) => "x".repeat(chars);

test("WebSocket: an agent awaiting its sends waits from the pacing mark until the socket drained", async () => {
  const socket = heldSocket();
  const limits: ConnectionLimitError[] = [];
  const outbound = new WebSocketOutbound(
    socket as ServerWebSocket,
    resolveLimits({}),
    (error) => void limits.push(error),
  );
  outbound.deliver(text(PACE_HIGH_WATER_BYTES - 1));
  assert.equal(await settled(outbound.whenRoom()), true, "below the mark: room at once");
  outbound.deliver(text(10));
  const waiting = outbound.whenRoom();
  assert.equal(await settled(waiting), false, "at the mark: the agent waits");
  assert.equal(outbound.backlogged, false, "far below the hard limit: not backlogged");
  socket.drain();
  assert.equal(await settled(waiting), true, "drained: the agent goes on");
  assert.deepEqual(limits, []);
});

test("WebSocket: a client that reads none of the paced output is disconnected after maxOutputStallMs", async () => {
  const socket = heldSocket();
  let limit: ConnectionLimitError | undefined;
  let onLimit!: () => void;
  const hit = new Promise<void>((resolve) => (onLimit = resolve));
  const outbound = new WebSocketOutbound(
    socket as ServerWebSocket,
    resolveLimits({ maxOutputStallMs: 100 }),
    (error) => {
      limit = error;
      onLimit();
    },
  );
  outbound.deliver(text(PACE_HIGH_WATER_BYTES));
  const waiting = outbound.whenRoom();
  await hit;
  assert.match(limit!.message, /read none of its output for 100 ms/);
  outbound.abort();
  assert.equal(await settled(waiting), true, "the waiting agent is released when the connection ends");
});

test(
  "Streamable HTTP: paced while a response reads, until its next take; unpaced while nobody reads (up to the " +
    "hard limit)",
  async () => {
    const outbound = new MemoryStreams(resolveLimits({}), {
      onLimit: () => assert.fail("no limit is hit"),
      onOpenStreams: () => {},
    });
    for (let i = 0; i < 4; i++) outbound.deliver(text(PACE_HIGH_WATER_CHARS / 2), "s1");
    assert.equal(
      await settled(outbound.whenRoom()),
      true,
      "no response reads this session yet: output buffers for a client that may come",
    );
    const reader = outbound.openStream("s1");
    assert.ok("take" in reader);
    const waiting = outbound.whenRoom();
    assert.equal(await settled(waiting), false, "a response reads: the agent waits for it");
    reader.take(PACE_HIGH_WATER_CHARS / 2);
    assert.equal(await settled(waiting), true, "the response took some: the agent goes on");
    outbound.abort();
  },
);
