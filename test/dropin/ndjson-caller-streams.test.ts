/**
 * Fault 1 of issue 8: `ndJsonStream(output, input)` must leave the caller's byte streams usable, as the official SDK
 * (1.9.0 and 2.4.0) does: the output is locked only while a write is in flight, it is never closed by the library
 * (neither when the input ends nor on close()), so the caller can close it (an agent's stdin closed this way makes
 * the agent exit) and write to it afterwards. Run against acpkit and, as the reference, against the official 1.9.0.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as official1x from "sdk-1.9";
import * as acpkit from "../../src/entries/index.js";

type Sdk = typeof official1x;
const impls: Array<[string, Sdk]> = [
  // A cast: the official classes have private members, which TypeScript compares nominally (the shapes are checked in
  // type-shapes.test.ts).
  ["acpkit", acpkit as unknown as Sdk],
  ["official 1.9.0", official1x],
];

function bytePipes() {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  return {
    client: { output: toAgent.writable, input: toClient.readable },
    agent: { output: toClient.writable, input: toAgent.readable },
  };
}

const agentImpl = (): official1x.Agent => ({
  initialize: async () => ({ protocolVersion: 1, agentCapabilities: {} }),
  newSession: async () => ({ sessionId: "s1" }),
  authenticate: async () => ({}),
  prompt: async () => ({ stopReason: "end_turn" }),
  cancel: async () => {},
});

const clientImpl = (): official1x.Client => ({
  requestPermission: async () => ({ outcome: { outcome: "cancelled" } }),
  sessionUpdate: async () => {},
});

/**
 * Waits (a bounded number of event-loop turns, no timers) until nobody holds `stream`'s lock: the official SDK
 * releases it when its last write settles, a few turns after the peer read the bytes.
 */
async function unlocked(stream: WritableStream<Uint8Array>): Promise<boolean> {
  for (let i = 0; i < 200 && stream.locked; i++) await new Promise((resolve) => setImmediate(resolve));
  return !stream.locked;
}

/** Resolves with "settled" when `promise` settles within a few event-loop turns, "pending" otherwise. */
async function settlesSoon(promise: Promise<unknown>): Promise<"settled" | "pending"> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 50 && !settled; i++) await new Promise((resolve) => setImmediate(resolve));
  return settled ? "settled" : "pending";
}

for (const [name, sdk] of impls) {
  describe(`ndJsonStream leaves the caller's streams usable (${name})`, () => {
    test("the output is not locked between writes, and the caller can close it; the agent then closes", async () => {
      const pipes = bytePipes();
      const agent = new sdk.AgentSideConnection(agentImpl, sdk.ndJsonStream(pipes.agent.output, pipes.agent.input));
      const client = new sdk.ClientSideConnection(
        clientImpl,
        sdk.ndJsonStream(pipes.client.output, pipes.client.input),
      );
      await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
      assert.equal(await unlocked(pipes.client.output), true, "the client's output is free between writes");
      await pipes.client.output.close(); // what a client does to end an agent: close its stdin
      await agent.closed; // the agent saw the end of its input
      assert.equal(await unlocked(pipes.agent.output), true, "the agent's output is free once its connection closed");
      assert.equal(await settlesSoon(client.closed), "pending", "the agent's output was not closed for it");
      await pipes.agent.output.close(); // the agent process exiting closes its stdout
      await client.closed;
    });

    test("the end of the input does not close the output: the caller can still write to it", async () => {
      const pipes = bytePipes();
      const agent = new sdk.AgentSideConnection(agentImpl, sdk.ndJsonStream(pipes.agent.output, pipes.agent.input));
      const writer = pipes.client.output.getWriter();
      void writer.write(
        new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n'),
      );
      const reader = pipes.client.input.getReader();
      const { value } = await reader.read();
      assert.match(new TextDecoder().decode(value), /"id":1,"result"/);
      await writer.close();
      await agent.closed;
      assert.equal(await unlocked(pipes.agent.output), true);
      const agentWriter = pipes.agent.output.getWriter();
      const written = agentWriter.write(new TextEncoder().encode("bye\n")); // a TransformStream write waits for its reader
      assert.equal(new TextDecoder().decode((await reader.read()).value), "bye\n");
      await written;
      await agentWriter.close();
      assert.equal((await reader.read()).done, true);
    });

    test("close() on the connection neither closes nor keeps the output", async () => {
      const pipes = bytePipes();
      const client = new sdk.ClientSideConnection(
        clientImpl,
        sdk.ndJsonStream(pipes.client.output, pipes.client.input),
      );
      const reader = pipes.agent.input.getReader();
      const pending = client.initialize({ protocolVersion: 1, clientCapabilities: {} });
      pending.catch(() => {});
      assert.match(new TextDecoder().decode((await reader.read()).value), /"method":"initialize"/);
      (client as unknown as { close?: (reason?: unknown) => void }).close?.();
      if (name === "acpkit") await assert.rejects(pending);
      assert.equal(await unlocked(pipes.client.output), true);
      const writer = pipes.client.output.getWriter();
      const written = writer.write(new TextEncoder().encode("still open\n"));
      assert.equal(new TextDecoder().decode((await reader.read()).value), "still open\n");
      await written;
      await writer.close();
    });
  });
}
