/**
 * Server request ids allocated by the backend: the client sees the backend's id on each agent request (and on the
 * agent's `$/cancel_request` for it), and its answer reaches the agent with the agent's own id.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentConnector } from "../../acp/agent-connector.js";
import { AcpServer } from "./acp-server.js";
import { MemoryServerBackend } from "./backend/memory-backend.js";
import { initialize, openStream, post } from "./testing/http-client.js";

type Message = { id?: unknown; method?: string; params?: any; result?: any };

/** A raw agent: answers initialize, and on any notification "go" sends request 7 then cancels it, then request 8. */
function rawAgent(received: Message[]): AgentConnector {
  return {
    connect(stream) {
      const writer = (stream.writable as WritableStream<unknown>).getWriter();
      void (async () => {
        const reader = (stream.readable as ReadableStream<unknown>).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          const message = value as Message;
          received.push(message);
          if (message.method === "initialize")
            await writer.write({
              jsonrpc: "2.0",
              id: message.id,
              result: { protocolVersion: 1, agentCapabilities: {} },
            });
          if (message.method === "go") {
            await writer.write({ jsonrpc: "2.0", id: 7, method: "fs/read_text_file", params: { path: "/a" } });
            await writer.write({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 7 } });
            await writer.write({ jsonrpc: "2.0", id: 8, method: "fs/read_text_file", params: { path: "/b" } });
          }
        }
      })();
      return {};
    },
  };
}

test("the client sees the backend's ids on agent requests and cancellations; its answers reach the agent with the agent's ids", async () => {
  const received: Message[] = [];
  let next = 0;
  const backend = new MemoryServerBackend({ serverRequestId: (connectionId, nodeId) => `${nodeId}/${++next}` });
  const acp = new AcpServer({ agent: rawAgent(received), backend });
  const { connectionId } = await initialize(acp);
  const stream = await openStream(acp, connectionId);
  assert.equal((await post(acp, connectionId, { jsonrpc: "2.0", method: "go" })).status, 202);
  const first = await stream.next();
  const cancel = await stream.next();
  const second = await stream.next();
  assert.deepEqual([first.id, first.params.path], ["node-1/1", "/a"]);
  assert.deepEqual(cancel, { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "node-1/1" } });
  assert.deepEqual([second.id, second.params.path], ["node-1/2", "/b"]);

  assert.equal(
    (await post(acp, connectionId, { jsonrpc: "2.0", id: "node-1/2", result: { content: "b" } })).status,
    202,
  );
  // An id the backend never gave passes through unchanged (the agent decides what to make of it).
  assert.equal((await post(acp, connectionId, { jsonrpc: "2.0", id: 99, result: {} })).status, 202);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const answers = received.filter((message) => message.method === undefined);
  assert.deepEqual(answers, [
    { jsonrpc: "2.0", id: 8, result: { content: "b" } },
    { jsonrpc: "2.0", id: 99, result: {} },
  ]);
  await stream.cancel();
  await acp.close();
});
