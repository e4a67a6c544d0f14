/**
 * Faults over real sockets: a client that vanishes mid-turn (its agent process is stopped after the grace period,
 * nothing left: checked by pid), `acp serve` stopped by SIGTERM mid-turn (the turn ends cancelled, exit 0, no
 * process left), oversized and malformed input.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { WebSocket } from "ws";
import { listenAcp, stdioAgentConnector, type ListeningAcpServer } from "../../../src/entries/node.js";
import { fixturePath } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { CLIENT_TRANSPORTS, officialWebSocket } from "./support/client-transports.js";
import { openRawSse, postJson } from "./support/raw-http.js";
import { remoteClient } from "./support/remote-client.js";
import { fixtureAgentCommand, isAlive, startServe, waitForExit, type ServeProcess } from "./support/serve-process.js";

const STEP = { timeout: 60_000 };
const READY = /agent ([0-9a-f]{8}) \| \[agent (\d+)\] interop-agent-app on acpkit ready/;

let work: string;
before(() => void (work = makeTempDir("acp-remote-faults-")));
after(() => removeTempDir(work));

describe("a client that vanishes mid-turn", () => {
  it(
    "HTTP: its streams die without a DELETE; after the idle timeout the connection is closed and its agent " +
      "process stopped",
    STEP,
    async () => {
      const serve: ServeProcess = await startServe([
        "--agent",
        fixtureAgentCommand(),
        "--idle-timeout",
        "500",
        "--verbose",
      ]);
      try {
        const auth = { authorization: `Bearer ${serve.token}` };
        const init = await postJson(serve.url, auth, {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: 1, clientCapabilities: {} },
        });
        assert.equal(init.status, 200);
        const ids = { ...auth, "acp-connection-id": init.headers.get("acp-connection-id")! };
        const connection = await openRawSse(serve.url, ids);
        await postJson(serve.url, ids, {
          jsonrpc: "2.0",
          id: 1,
          method: "session/new",
          params: { cwd: work, mcpServers: [] },
        });
        const sessionId = (await connection.until((event) => event.id === 1)).result.sessionId as string;
        const session = await openRawSse(serve.url, { ...ids, "acp-session-id": sessionId });
        const prompt = {
          jsonrpc: "2.0",
          id: 2,
          method: "session/prompt",
          params: { sessionId, prompt: [{ type: "text", text: "slow" }] },
        };
        assert.equal((await postJson(serve.url, { ...ids, "acp-session-id": sessionId }, prompt)).status, 202);
        await session.until((event) => event.params?.update?.content?.text === "waiting");
        const pid = Number((await serve.waitForStderr(READY))[2]);
        assert.ok(isAlive(pid));
        connection.cut();
        session.cut();
        await serve.waitForStderr(/connection [0-9a-f]{8} closed \(idle\)/);
        await waitForExit(pid);
      } finally {
        assert.deepEqual(await serve.stop(), { code: 0, signal: null });
      }
    },
  );

  it("WebSocket: the socket dies mid-turn; the connection ends and its agent process is stopped", STEP, async () => {
    const pids: number[] = [];
    let onStopped!: (pid: number) => void;
    const stopped = new Promise<number>((resolve) => (onStopped = resolve));
    const listening: ListeningAcpServer = await listenAcp({
      token: "vanish",
      agent: stdioAgentConnector({
        argv: [process.execPath, fixturePath("interop-agent-app"), "--impl=acpkit"],
        onProcess: (event) => (event.type === "started" ? pids.push(event.pid) : onStopped(event.pid)),
      }),
    });
    try {
      let socket: WebSocket | undefined;
      const client = await remoteClient(
        officialWebSocket.open({
          url: listening.url,
          webSocketUrl: listening.webSocketUrl,
          token: "vanish",
          onWebSocket: (made) => (socket = made),
        }),
        work,
      );
      await client.initialize();
      const sessionId = await client.newSession(work);
      const running = client.prompt(sessionId, "slow").catch((error: Error) => error);
      await client.host.until(() => client.host.texts(0, sessionId).includes("waiting"), 10_000, "the waiting update");
      const pid = pids[0]!;
      assert.ok(isAlive(pid));
      socket!.terminate();
      assert.equal(await stopped, pid, "the connector stopped the connection's agent");
      await waitForExit(pid);
      assert.ok((await running) instanceof Error, "the client's turn fails, it does not hang");
      assert.equal(listening.server.connectionCount, 0);
    } finally {
      await listening.close();
    }
  });
});

describe("acp serve stopped by SIGTERM mid-turn", () => {
  for (const transport of CLIENT_TRANSPORTS) {
    it(
      `${transport.name}: the running turn ends cancelled, acp serve exits 0, no agent process is left`,
      STEP,
      async () => {
        const serve = await startServe(["--agent", fixtureAgentCommand(), "--verbose"]);
        const client = await remoteClient(
          transport.open({ url: serve.url, webSocketUrl: serve.webSocketUrl, token: serve.token }),
          work,
          transport.impl,
        );
        await client.initialize();
        const sessionId = await client.newSession(work);
        const running = client.prompt(sessionId, "slow").then(
          (response) => response.stopReason,
          (error: Error) => `error: ${error.message}`,
        );
        await client.host.until(
          () => client.host.texts(0, sessionId).includes("waiting"),
          10_000,
          "the waiting update",
        );
        const pid = Number((await serve.waitForStderr(READY))[2]);
        assert.deepEqual(await serve.stop("SIGTERM"), { code: 0, signal: null });
        assert.equal(
          await running,
          "cancelled",
          "the turn was cancelled (session/cancel) and its answer delivered before the stream ended",
        );
        await waitForExit(pid, 5000);
        assert.match(serve.stderr(), /SIGTERM: stopping/);
        await client.closed.catch(() => {});
      },
    );
  }
});

describe("oversized and malformed input over real sockets", () => {
  let listening: ListeningAcpServer;
  before(async () => {
    listening = await listenAcp({
      token: "t",
      maxRequestBodyBytes: 64 * 1024,
      maxMessageBytes: 256 * 1024,
      agent: stdioAgentConnector({ argv: [process.execPath, fixturePath("interop-agent-app"), "--impl=acpkit"] }),
    });
  });
  after(() => listening.close());
  const auth = { authorization: "Bearer t" };

  it("a POST body over maxRequestBodyBytes gets 413 without being read whole", STEP, async () => {
    const big = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {}, padding: "x".repeat(200 * 1024) },
    };
    const answer = await postJson(listening.url, auth, big);
    assert.equal(answer.status, 413);
    assert.match(answer.text, /maxRequestBodyBytes/);
    assert.equal(
      (
        await postJson(listening.url, auth, {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: 1, clientCapabilities: {} },
        })
      ).status,
      200,
    );
  });

  it("malformed JSON is answered 400 with a JSON-RPC -32700 body; a batch 501", STEP, async () => {
    const bad = await postJson(listening.url, auth, '{"jsonrpc":"2.0","id":1,');
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.text).error.code, -32700);
    const batch = await postJson(listening.url, auth, "[]");
    assert.equal(batch.status, 501);
  });

  it("a WebSocket frame over maxMessageBytes closes the socket with 1009", STEP, async () => {
    const { WebSocket } = await import("ws");
    const socket = new WebSocket(listening.webSocketUrl, ["acp"], { headers: auth });
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    assert.equal(socket.protocol, "acp");
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    socket.send("x".repeat(300 * 1024));
    assert.equal(await closed, 1009);
  });

  it("an upgrade without the token is refused with 401 before any agent starts", STEP, async () => {
    const { WebSocket } = await import("ws");
    const before = listening.server.connectionCount;
    const socket = new WebSocket(listening.webSocketUrl);
    const status = await new Promise<number | undefined>((resolve) => {
      socket.once("unexpected-response", (_request, response) => resolve(response.statusCode));
      socket.once("open", () => resolve(101));
      socket.once("error", () => resolve(undefined));
    });
    assert.equal(status, 401);
    assert.equal(listening.server.connectionCount, before, "no connection was made for it");
  });
});

describe("backpressure reaches a stdio agent process", () => {
  it(
    "a client that stops reading holds the agent's stdout (no buffering past the limit), then is cut off by " +
      "the stall timeout",
    STEP,
    async () => {
      const closes: Array<{ reason: string; error?: unknown }> = [];
      let closed!: () => void;
      const ended = new Promise<void>((resolve) => (closed = resolve));
      const pids: number[] = [];
      const listening = await listenAcp({
        token: "bp",
        maxBufferedBytes: 64 * 1024,
        maxMessageBytes: 256 * 1024,
        maxOutputStallMs: 2000,
        agent: stdioAgentConnector({
          argv: [process.execPath, fixturePath("interop-agent-app"), "--impl=acpkit"],
          onProcess: (event) => event.type === "started" && pids.push(event.pid),
        }),
        onConnectionEvent: (event) => {
          if (event.type !== "close") return;
          closes.push({ reason: event.reason, error: event.error });
          closed();
        },
      });
      try {
        const { WebSocket } = await import("ws");
        const socket = new WebSocket(listening.webSocketUrl, ["acp"], { headers: { authorization: "Bearer bp" } });
        const next = () =>
          new Promise<any>((resolve) => socket.once("message", (data) => resolve(JSON.parse(String(data)))));
        await new Promise((resolve, reject) => {
          socket.once("open", resolve);
          socket.once("error", reject);
        });
        socket.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 0,
            method: "initialize",
            params: { protocolVersion: 1, clientCapabilities: {} },
          }),
        );
        await next();
        socket.send(
          JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: work, mcpServers: [] } }),
        );
        const sessionId = (await next()).result.sessionId;
        socket.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 2,
            method: "session/prompt",
            params: { sessionId, prompt: [{ type: "text", text: "stream 1000000" }] },
          }),
        );
        await next();
        socket.pause();
        await ended;
        assert.equal(closes[0]!.reason, "limit");
        assert.match(
          String((closes[0]!.error as Error).message),
          /read none of its output for 2000 ms/,
          "the stall timeout, not the hard cap: the agent was held",
        );
        await waitForExit(pids[0]!);
        socket.terminate();
      } finally {
        await listening.close();
      }
    },
  );
});
