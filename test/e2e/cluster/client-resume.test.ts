/**
 * acpkit's Streamable HTTP client resumes a broken event stream with `Last-Event-ID`: a 20,000-chunk turn through a
 * proxy that resets the session stream's connection three times mid-turn arrives whole, once, in order; so does one
 * through a proxy that ends the session stream's response cleanly but early three times (as a balancer may end the
 * response of a node that died: only the server's end event says a stream really ended). Without resumption
 * (`maxResumeAttempts: 0`) the same break ends the connection.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createHttpStream } from "../../../src/remote/client/http-stream.js";
import { listenAcp } from "../../../src/node/server/listen.js";
import { stdioAgentConnector } from "../../../src/node/server/stdio-agent-connector.js";
import { fixturePath } from "../interop/support/spawn.js";
import { cuttingProxy } from "./support/cutting-proxy.js";
import { endingProxy } from "./support/ending-proxy.js";

const CHUNKS = 20_000;
let server: Awaited<ReturnType<typeof listenAcp>>;

before(async () => {
  server = await listenAcp({
    agent: stdioAgentConnector({ argv: [process.execPath, fixturePath("cluster-agent"), "--stdio"] }),
    insecureNoToken: true,
    maxRetainedBytes: 16 * 1024 * 1024,
  });
});

after(() => server.close());

/** Runs initialize, session/new and a `stream N` turn on `url`; the chunk texts received, or the error. */
async function streamTurn(url: string, options: { maxResumeAttempts?: number }): Promise<string[]> {
  const stream = createHttpStream(url, options);
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const texts: string[] = [];
  const until = async (id: number) => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before the response to ${id}`);
      const message = value as { id?: number; result?: any; error?: any; method?: string; params?: any };
      if (message.method === "session/update") texts.push(message.params.update.content.text);
      else if (message.id === id) {
        if (message.error) throw new Error(`request ${id} failed: ${JSON.stringify(message.error)}`);
        return message.result;
      }
    }
  };
  try {
    await writer.write({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    });
    await until(1);
    await writer.write({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } });
    const { sessionId } = await until(2);
    await writer.write({
      jsonrpc: "2.0",
      id: 3,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: `stream ${CHUNKS}` }] },
    });
    assert.deepEqual(await until(3), { stopReason: "end_turn" });
    return texts;
  } finally {
    await writer.close().catch(() => {});
  }
}

test("a session stream reset three times mid-turn is resumed with Last-Event-ID: every chunk once, in order", async () => {
  const url = new URL(server.url);
  const proxy = await cuttingProxy(
    { host: url.hostname, port: Number(url.port), path: url.pathname },
    { cutAfterBytes: 400_000, cuts: 3 },
  );
  try {
    const texts = await streamTurn(proxy.url, {});
    assert.equal(proxy.cuts, 3, "the proxy broke three responses");
    assert.ok(proxy.lastEventIds.length >= 3, `resumed with Last-Event-ID: ${JSON.stringify(proxy.lastEventIds)}`);
    assert.equal(texts.length, CHUNKS);
    const expected = Array.from({ length: CHUNKS }, (_, i) => `chunk-${i}`.padEnd(40, "."));
    assert.equal(texts.join("|"), expected.join("|"));
  } finally {
    await proxy.close();
  }
});

test("a session stream ended cleanly but early (no end event) three times mid-turn is resumed: every chunk once, in order", async () => {
  const url = new URL(server.url);
  const proxy = await endingProxy(
    { host: url.hostname, port: Number(url.port), path: url.pathname },
    { endAfterBytes: 400_000, ends: 3 },
  );
  try {
    const texts = await streamTurn(proxy.url, {});
    assert.equal(proxy.ends, 3, "the proxy ended three responses early");
    assert.ok(proxy.lastEventIds.length >= 3, `resumed with Last-Event-ID: ${JSON.stringify(proxy.lastEventIds)}`);
    const expected = Array.from({ length: CHUNKS }, (_, i) => `chunk-${i}`.padEnd(40, "."));
    assert.equal(texts.join("|"), expected.join("|"));
  } finally {
    await proxy.close();
  }
});

test("without resumption (maxResumeAttempts: 0) the same break ends the connection, saying which stream broke", async () => {
  const url = new URL(server.url);
  const proxy = await cuttingProxy(
    { host: url.hostname, port: Number(url.port), path: url.pathname },
    { cutAfterBytes: 400_000, cuts: 1 },
  );
  try {
    const error = await streamTurn(proxy.url, { maxResumeAttempts: 0 }).then(
      () => assert.fail("the turn completed"),
      (e: unknown) => e,
    );
    assert.match(String(error), /event stream of session session-1 .* broke off/);
    assert.deepEqual(proxy.lastEventIds, []);
  } finally {
    await proxy.close();
  }
});
