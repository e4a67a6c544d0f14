/**
 * Streamable HTTP client faults against a scripted server on a real socket: malformed SSE, oversized events and
 * messages, 4xx/5xx answers (the waiting request gets a JSON-RPC error, never a hang; 401/403/404/410 end the
 * transport), a session stream refused with 409 or ended mid-request, and the connection stream ending.
 */
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { afterEach, describe, it } from "node:test";
import {
  ClientSideConnection,
  ConnectionClosedError,
  MessageTooLargeError,
  RequestError,
  ResponseLostError,
  type Client,
} from "../../../src/entries/index.js";
import { createHttpStream } from "../../../src/entries/remote.js";
import { within } from "../interop/support/spawn.js";
import {
  answerInitialize,
  openSse,
  scriptedServer,
  sseEvent,
  type ScriptedRequest,
  type ScriptedServer,
} from "./support/scripted-server.js";

const STEP = { timeout: 30_000 };
const client: Client = {
  sessionUpdate: async () => {},
  requestPermission: async () => ({ outcome: { outcome: "cancelled" } }),
};
const INIT = { protocolVersion: 1, clientCapabilities: {} };

/** A scripted endpoint: initialize, the connection stream (`events`), session streams held open, 202 for POSTs. */
async function endpoint(
  onPost: (request: ScriptedRequest, res: ServerResponse, events: (text: string) => void) => boolean | void,
  onSessionGet?: (request: ScriptedRequest, res: ServerResponse) => boolean | void,
) {
  let write: ((text: string) => void) | undefined;
  const early: string[] = [];
  const events = (text: string) => (write ? write(text) : early.push(text));
  let connectionRes: ServerResponse | undefined;
  const server = await scriptedServer((request, res) => {
    if (request.method === "POST" && request.json?.method === "initialize" && !request.headers["acp-connection-id"])
      return answerInitialize(request, res);
    if (request.method === "GET" && !request.headers["acp-session-id"]) {
      connectionRes = res;
      write = openSse(res);
      for (const text of early.splice(0)) write(text);
      return;
    }
    if (request.method === "GET") {
      if (onSessionGet?.(request, res) === true) return;
      openSse(res);
      return;
    }
    if (request.method === "DELETE") return void res.writeHead(202).end();
    if (onPost(request, res, events) === true) return;
    res.writeHead(202).end();
  });
  return { server, events, endConnectionStream: () => connectionRes?.end() };
}

/** Answers `_x/ping` requests on the connection stream. */
function pong(request: ScriptedRequest, events: (text: string) => void): void {
  if (request.json?.method === "_x/ping")
    events(sseEvent({ jsonrpc: "2.0", id: request.json.id, result: { pong: true } }));
}

describe("Streamable HTTP client faults (scripted server)", () => {
  let server: ScriptedServer | undefined;
  let connection: ClientSideConnection | undefined;
  afterEach(async () => {
    connection?.close();
    await server?.close();
  });

  it(
    "malformed SSE: comments, ignored fields, bad JSON and a non-object are survived; a multi-line event " +
      "split across writes arrives",
    STEP,
    async () => {
      const scripted = await endpoint((request, res, events) => {
        if (request.json?.method !== "session/new") return;
        res.writeHead(202).end();
        events(":keep-alive\n\ndata: {not json\n\nevent: message\r\nid: 9\r\nretry: 5\r\ndata: 7\r\n\r\n");
        events(`data: {"jsonrpc":"2.0",\ndata: "id":${JSON.stringify(request.json.id)},"res`);
        events(`ult":{"sessionId":"s1"}}\r\n\r\n`);
        return true;
      });
      server = scripted.server;
      connection = new ClientSideConnection(() => client, createHttpStream(server.url));
      await connection.initialize(INIT);
      assert.deepEqual(await connection.newSession({ cwd: "/", mcpServers: [] }), { sessionId: "s1" });
      // The engine answered the frames it could not use, as over stdio: -32700 for bad JSON, -32600 for the 7.
      await server.until((r) => (r.json?.error as { code?: number } | undefined)?.code === -32700, "the -32700 answer");
      await server.until((r) => (r.json?.error as { code?: number } | undefined)?.code === -32600, "the -32600 answer");
      await server.until(
        (r) => r.method === "GET" && r.headers["acp-session-id"] === "s1",
        "the session stream opened on the session/new result",
      );
    },
  );

  it(
    "silenceTimeoutMs: a server that sent keep-alives and then nothing fails the waiting request, saying so; " +
      "without the option the request keeps waiting",
    STEP,
    async () => {
      const scripted = await endpoint(() => {});
      server = scripted.server;
      scripted.events(":keep-alive\n\n");
      connection = new ClientSideConnection(() => client, createHttpStream(server.url, { silenceTimeoutMs: 300 }));
      await connection.initialize(INIT);
      const started = Date.now();
      await assert.rejects(
        within(connection.extMethod("_x/hang", {}), 10_000, "the request to fail"),
        (error: Error) => {
          const text = `${error.message} ${(error.cause as Error | undefined)?.message ?? ""}`;
          assert.match(text, /sent nothing on an event stream for 0 s, not even the keep-alive comments/);
          return true;
        },
      );
      assert.ok(Date.now() - started >= 250, `failed after ${Date.now() - started} ms`);

      const patient = new ClientSideConnection(() => client, createHttpStream(server.url));
      await patient.initialize(INIT);
      const waiting = patient.extMethod("_x/hang", {}).then(
        () => "answered",
        () => "failed",
      );
      const early = await Promise.race([waiting, new Promise((resolve) => setTimeout(resolve, 800, "waiting"))]);
      patient.close();
      assert.equal(early, "waiting");
    },
  );

  it("an oversized event fails only the request it answers; an oversized message is not sent", STEP, async () => {
    const scripted = await endpoint((request, _res, events) => {
      if (request.json?.method === "session/new")
        events(sseEvent({ jsonrpc: "2.0", id: request.json.id, result: { sessionId: "x".repeat(5000) } }));
      pong(request, events);
    });
    server = scripted.server;
    connection = new ClientSideConnection(() => client, createHttpStream(server.url, { maxMessageBytes: 2048 }));
    await connection.initialize(INIT);
    await assert.rejects(connection.newSession({ cwd: "/", mcpServers: [] }), MessageTooLargeError);
    assert.deepEqual(await connection.extMethod("_x/ping", {}), { pong: true });
    const before = server.requests.length;
    await assert.rejects(
      connection.prompt({ sessionId: "s", prompt: [{ type: "text", text: "y".repeat(5000) }] }),
      MessageTooLargeError,
    );
    assert.equal(server.requests.slice(before).filter((r) => r.json?.method === "session/prompt").length, 0);
  });

  it(
    "4xx and 5xx answers become the waiting request's JSON-RPC error; the connection stays up until a 401",
    STEP,
    async () => {
      const scripted = await endpoint((request, res, events) => {
        const method = request.json?.method;
        const status =
          method === "_x/overloaded"
            ? 503
            : method === "_x/malformed"
              ? 400
              : method === "_x/unauthorized"
                ? 401
                : undefined;
        if (status !== undefined) {
          res
            .writeHead(status, { "Content-Type": "text/plain" })
            .end(status === 503 ? "overloaded, retry later" : status === 400 ? "bad request" : "token expired");
          return true;
        }
        pong(request, events);
      });
      server = scripted.server;
      connection = new ClientSideConnection(() => client, createHttpStream(server.url));
      await connection.initialize(INIT);
      await assert.rejects(connection.extMethod("_x/overloaded", {}), (error: RequestError) => {
        assert.ok(error instanceof RequestError);
        assert.equal(error.code, -32603);
        assert.deepEqual(error.data, { status: 503, body: "overloaded, retry later" });
        assert.match(error.message, /HTTP 503.*overloaded, retry later/);
        return true;
      });
      await assert.rejects(connection.extMethod("_x/malformed", {}), (error: RequestError) => error.code === -32600);
      assert.deepEqual(await connection.extMethod("_x/ping", {}), { pong: true });
      await assert.rejects(
        connection.extMethod("_x/unauthorized", {}),
        (error: RequestError) => error.code === -32603 && /401.*token expired.*check the token/.test(error.message),
      );
      await within(connection.closed, 10_000, "the connection to close after the 401");
      await assert.rejects(
        connection.extMethod("_x/ping", {}),
        (error: Error) => error instanceof ConnectionClosedError && /HTTP 401/.test(error.message),
      );
      await server.until((r) => r.method === "DELETE", "the DELETE of the failed connection");
    },
  );

  it("initialize refused with 401: the request fails saying so, and the transport ends", STEP, async () => {
    server = await scriptedServer(
      (_request, res) => void res.writeHead(401, { "WWW-Authenticate": "Bearer" }).end("missing bearer token"),
    );
    connection = new ClientSideConnection(() => client, createHttpStream(server.url));
    await assert.rejects(connection.initialize(INIT), (error: RequestError) =>
      /HTTP 401.*missing bearer token.*check the token/.test(error.message),
    );
    await within(connection.closed, 10_000, "the connection to close");
  });

  it(
    "a session stream refused with 409 fails that session's requests until session/load reattaches it",
    STEP,
    async () => {
      let sessionGets = 0;
      const scripted = await endpoint(
        (request, _res, events) => {
          const { method, id } = request.json ?? {};
          if (method === "session/new") events(sseEvent({ jsonrpc: "2.0", id, result: { sessionId: "s1" } }));
          if (method === "session/load") events(sseEvent({ jsonrpc: "2.0", id, result: {} }));
          pong(request, events);
        },
        (_request, res) => {
          if (++sessionGets > 1) return;
          res.writeHead(409, { "Content-Type": "text/plain" }).end("stream already has a receiver");
          return true;
        },
      );
      server = scripted.server;
      connection = new ClientSideConnection(() => client, createHttpStream(server.url));
      await connection.initialize(INIT);
      await connection.newSession({ cwd: "/", mcpServers: [] });
      await server.until((r) => r.method === "GET" && r.headers["acp-session-id"] === "s1", "the refused session GET");
      await assert.rejects(
        connection.prompt({ sessionId: "s1", prompt: [] }),
        (error: RequestError) => error instanceof RequestError && /409/.test(error.message),
      );
      assert.deepEqual(await connection.extMethod("_x/ping", {}), { pong: true }, "the connection is fine");
      assert.deepEqual(await connection.loadSession({ sessionId: "s1", cwd: "/", mcpServers: [] }), {});
      assert.equal(sessionGets, 2, "session/load opened the session stream again");
    },
  );

  it(
    "a session stream that ends loses its waiting request (ResponseLostError); the next message opens it again",
    STEP,
    async () => {
      const sessionStreams: ServerResponse[] = [];
      const scripted = await endpoint(
        (request, _res, events) => {
          const { method, id } = request.json ?? {};
          if (method === "session/new") events(sseEvent({ jsonrpc: "2.0", id, result: { sessionId: "s1" } }));
          if (method === "session/prompt" && sessionStreams.length === 2)
            sessionStreams[1]!.write(sseEvent({ jsonrpc: "2.0", id, result: { stopReason: "end_turn" } }));
        },
        (_request, res) => {
          sessionStreams.push(res);
          openSse(res);
          return true;
        },
      );
      server = scripted.server;
      connection = new ClientSideConnection(() => client, createHttpStream(server.url));
      await connection.initialize(INIT);
      await connection.newSession({ cwd: "/", mcpServers: [] });
      const turn = connection.prompt({ sessionId: "s1", prompt: [] });
      await server.until((r) => r.json?.method === "session/prompt", "the prompt");
      sessionStreams[0]!.end();
      await assert.rejects(
        within(turn, 10_000, "the lost turn"),
        (error: Error) =>
          error instanceof ResponseLostError &&
          /session\/prompt.*closed the event stream of session s1/.test(error.message),
      );
      assert.deepEqual(await connection.prompt({ sessionId: "s1", prompt: [] }), { stopReason: "end_turn" });
    },
  );

  it("the connection stream ending ends the transport, failing what waits with a clear error", STEP, async () => {
    const scripted = await endpoint(() => {});
    server = scripted.server;
    connection = new ClientSideConnection(() => client, createHttpStream(server.url));
    await connection.initialize(INIT);
    const waiting = connection.extMethod("_x/never", {});
    await server.until((r) => r.json?.method === "_x/never", "the request");
    scripted.endConnectionStream();
    await assert.rejects(
      within(waiting, 10_000, "the failed request"),
      (error: Error) =>
        error instanceof ConnectionClosedError && /closed the connection's event stream/.test(error.message),
    );
  });
});
