/**
 * The remote clients use the `fetch` and the WebSocket constructor they are given, over real sockets against
 * `listenAcp` (a stdio agent behind it): every HTTP request of a whole session (initialize, the event streams, the
 * prompt, the DELETE) goes through the supplied `fetch` and none through the global one (trapped for the test), and
 * the supplied WebSocket class is the one constructed (Node 20 has no global WebSocket, and `connectRemote` would
 * otherwise construct `ws` itself).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import { createHttpStream } from "../../../src/entries/experimental/http-client.js";
import { createWebSocketStream } from "../../../src/entries/experimental/ws-client.js";
import { connectRemote, listenAcp, stdioAgentConnector, type ListeningAcpServer } from "../../../src/entries/node.js";
import { openRemoteStream } from "../../../src/remote/client/index.js";
import { fixturePath } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import type { MessageStream } from "./support/client-transports.js";
import { remoteClient } from "./support/remote-client.js";

const STEP = { timeout: 60_000 };
const TOKEN = "injection";

let work: string;
let listening: ListeningAcpServer;
before(async () => {
  work = makeTempDir("acp-injection-");
  listening = await listenAcp({
    token: TOKEN,
    agent: stdioAgentConnector({ argv: [process.execPath, fixturePath("interop-agent-app"), "--impl=acpkit"] }),
  });
});
after(async () => {
  await listening.close();
  removeTempDir(work);
});

async function until(test: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Initialize, a session, a streamed prompt, close: a whole session over `stream`. */
async function session(stream: MessageStream): Promise<void> {
  const client = await remoteClient(stream, work, "acpkit");
  assert.ok((await client.initialize()).agentInfo);
  const sessionId = await client.newSession(work);
  assert.equal((await client.prompt(sessionId, "stream 3")).stopReason, "end_turn");
  assert.equal(client.host.texts(0, sessionId).length, 3);
  client.close();
  await client.closed.catch(() => {});
}

describe("a supplied fetch carries every request; the global one none", () => {
  const original = globalThis.fetch;
  let globalCalls = 0;
  before(() => {
    globalThis.fetch = ((...args: Parameters<typeof fetch>) => {
      globalCalls++;
      return original(...args);
    }) as typeof fetch;
  });
  after(() => void (globalThis.fetch = original));

  const opens: [string, (fetchImpl: typeof fetch) => MessageStream | Promise<MessageStream>][] = [
    [
      "createHttpStream (@acpkit/sdk/experimental/http-client)",
      (fetchImpl) => createHttpStream(listening.url, { fetch: fetchImpl, token: TOKEN }) as MessageStream,
    ],
    [
      "openRemoteStream, profile http",
      (fetchImpl) =>
        openRemoteStream(listening.url, { profile: "http", fetch: fetchImpl, token: TOKEN }) as Promise<MessageStream>,
    ],
    [
      "connectRemote, profile http",
      (fetchImpl) =>
        connectRemote(listening.url, { profile: "http", fetch: fetchImpl, token: TOKEN }) as Promise<MessageStream>,
    ],
  ];
  for (const [name, open] of opens) {
    it(name, STEP, async () => {
      const calls: { method: string; accept: string | null; body: string }[] = [];
      const supplied = (async (input: string | URL | Request, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        calls.push({
          method: init?.method ?? "GET",
          accept: headers.get("accept"),
          body: typeof init?.body === "string" ? init.body : "",
        });
        return original(input, init);
      }) as typeof fetch;
      globalCalls = 0;
      await session(await open(supplied));
      await until(() => calls.some((call) => call.method === "DELETE"), "the DELETE");
      const posted = calls
        .filter((call) => call.method === "POST")
        .map((call) => (JSON.parse(call.body) as { method?: string }).method);
      assert.deepEqual(
        posted.filter((method) => method !== undefined),
        ["initialize", "session/new", "session/prompt"],
      );
      assert.ok(
        calls.some((call) => call.method === "GET" && call.accept?.includes("text/event-stream")),
        "the event streams were opened through it",
      );
      assert.equal(globalCalls, 0, "the global fetch was never called");
    });
  }
});

describe("a supplied WebSocket constructor is the one used", () => {
  const made: { url: string; protocols: unknown; authorization: string | undefined }[] = [];
  class RecordingWebSocket extends WebSocket {
    constructor(url: string | URL, protocols?: string | string[], options?: { headers?: Record<string, string> }) {
      super(url, protocols, options);
      made.push({
        url: String(url),
        protocols,
        authorization: options?.headers?.Authorization ?? options?.headers?.authorization,
      });
    }
  }
  const opens: [string, () => MessageStream | Promise<MessageStream>][] = [
    [
      "createWebSocketStream (@acpkit/sdk/experimental/ws-client)",
      () =>
        createWebSocketStream(listening.webSocketUrl, {
          WebSocket: RecordingWebSocket as never,
          token: TOKEN,
        }) as MessageStream,
    ],
    [
      "openRemoteStream, profile auto (no global WebSocket needed)",
      () =>
        openRemoteStream(listening.url, {
          WebSocket: RecordingWebSocket as never,
          token: TOKEN,
        }) as Promise<MessageStream>,
    ],
    [
      "connectRemote (instead of its own ws)",
      () =>
        connectRemote(listening.url, {
          WebSocket: RecordingWebSocket as never,
          token: TOKEN,
        }) as Promise<MessageStream>,
    ],
  ];
  for (const [name, open] of opens) {
    it(name, STEP, async () => {
      made.length = 0;
      const stream = await open();
      await session(stream);
      assert.equal(made.length, 1, "constructed once");
      assert.equal(made[0]!.url, listening.webSocketUrl);
      assert.equal(
        made[0]!.authorization,
        `Bearer ${TOKEN}`,
        "a header-capable constructor gets the token in Authorization",
      );
      if ("profile" in stream) assert.equal((stream as { profile: string }).profile, "websocket");
    });
  }
});
