/**
 * Access control of `acp serve` over real sockets, as a browser page, a DNS-rebinding page or a stranger meets it:
 * the bearer token (401, with `WWW-Authenticate`), the Origin check (403 for a foreign or `null` origin, even with the
 * token; the server's own origin and `--allow-origin` ones pass, the latter with CORS headers), the Host allow-list
 * (403), each on a POST and on the WebSocket upgrade; and no refused request ever starts an agent process.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import { startServe, type ServeProcess } from "./support/serve-process.js";

const TOKEN = "access-token";
const ALLOWED_ORIGIN = "https://app.example";
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** POSTs `initialize` with exactly `headers` (Host included when given), on a socket of its own. */
function postInitialize(url: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (text: string) => (body += text));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(INITIALIZE);
  });
}

/** Tries a WebSocket upgrade; the status of a refusal, or 101 and the selected subprotocol. */
function upgrade(
  url: string,
  protocols: string[],
  headers: Record<string, string>,
  origin?: string,
): Promise<{ status: number; protocol?: string; body?: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, { headers, ...(origin === undefined ? {} : { origin }) });
    socket.once("unexpected-response", (_req, res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (text: string) => (body += text));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    socket.once("open", () => {
      const protocol = socket.protocol;
      socket.close();
      resolve({ status: 101, protocol });
    });
    socket.once("error", (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error);
    });
  });
}

describe("acp serve refuses strangers over real sockets, before any agent starts", () => {
  let serve: ServeProcess;
  let port: string;
  let ownOrigin: string;
  before(async () => {
    serve = await startServe(["--token", TOKEN, "--allow-origin", ALLOWED_ORIGIN, "--grace", "0"]);
    port = new URL(serve.url).port;
    ownOrigin = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    assert.deepEqual(await serve.stop(), { code: 0, signal: null });
  });
  const bearer = { authorization: `Bearer ${TOKEN}` };
  const opened = () => serve.stderr().match(/connection [0-9a-f]{8} opened/g)?.length ?? 0;

  it(
    "POST: no token 401, a wrong one 401 invalid_token; a foreign or null Origin 403 even with the token; a " +
      "foreign Host 403",
    async () => {
      const none = await postInitialize(serve.url, {});
      assert.equal(none.status, 401);
      assert.equal(none.headers["www-authenticate"], 'Bearer realm="acp"');
      const wrong = await postInitialize(serve.url, { authorization: "Bearer not-the-token" });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.headers["www-authenticate"], 'Bearer realm="acp", error="invalid_token"');
      const foreign = await postInitialize(serve.url, { ...bearer, origin: "https://evil.example" });
      assert.equal(foreign.status, 403);
      assert.match(foreign.body, /web origin "https:\/\/evil\.example" are not allowed/);
      assert.equal(foreign.headers["access-control-allow-origin"], undefined, "no CORS grant for a foreign origin");
      assert.equal((await postInitialize(serve.url, { ...bearer, origin: "null" })).status, 403);
      // A page on another port of the same machine is another origin.
      assert.equal(
        (await postInitialize(serve.url, { ...bearer, origin: `http://127.0.0.1:${Number(port) + 1}` })).status,
        403,
      );
      const rebinding = await postInitialize(serve.url, { ...bearer, host: `evil.example:${port}` });
      assert.equal(rebinding.status, 403);
      assert.match(rebinding.body, /Host header "evil\.example:\d+" is not one this server answers to/);
      // Refused before anything reached an agent: no connection opened, so no agent process was started.
      assert.equal(opened(), 0, serve.stderr());
    },
  );

  it(
    "POST: the token with no Origin, the server's own origin, or an --allow-origin one is served (CORS only for " +
      "the listed one)",
    async () => {
      const plain = await postInitialize(serve.url, bearer);
      assert.equal(plain.status, 200, plain.body);
      assert.ok(plain.headers["acp-connection-id"]);
      const own = await postInitialize(serve.url, { ...bearer, origin: ownOrigin });
      assert.equal(own.status, 200, own.body);
      const listed = await postInitialize(serve.url, { ...bearer, origin: ALLOWED_ORIGIN });
      assert.equal(listed.status, 200, listed.body);
      assert.equal(listed.headers["access-control-allow-origin"], ALLOWED_ORIGIN);
      const localhost = await postInitialize(serve.url, { ...bearer, host: `localhost:${port}` });
      assert.equal(localhost.status, 200, "loopback names are allowed hosts");
      await serve.waitForStderr(/(connection [0-9a-f]{8} opened[^]*){4}/);
    },
  );

  it(
    "WebSocket upgrade: no token 401, a foreign Origin 403 even with the token, a foreign Host 403; the token " +
      "in a header or the acp.bearer subprotocol is accepted",
    async () => {
      const before = opened();
      const ws = serve.webSocketUrl;
      assert.equal((await upgrade(ws, ["acp"], {})).status, 401);
      assert.equal(
        (await upgrade(ws, ["acp", "acp.bearer.bm90LXRoZS10b2tlbg"], {})).status,
        401,
        "a wrong token in the subprotocol",
      );
      const foreign = await upgrade(ws, ["acp"], bearer, "https://evil.example");
      assert.equal(foreign.status, 403);
      assert.match(foreign.body ?? "", /web origin "https:\/\/evil\.example" are not allowed/);
      const rebinding = await upgrade(ws, ["acp"], { ...bearer, host: `evil.example:${port}` });
      assert.equal(rebinding.status, 403);
      assert.match(rebinding.body ?? "", /Host header "evil\.example:\d+" is not one this server answers to/);
      assert.equal(opened(), before, "no refused upgrade opened a connection");

      const header = await upgrade(ws, ["acp"], bearer);
      assert.deepEqual(header, { status: 101, protocol: "acp" });
      // A browser: no Authorization header possible, the token in a subprotocol, its page's origin allowed.
      const subprotocol = await upgrade(
        ws,
        ["acp", `acp.bearer.${Buffer.from(TOKEN).toString("base64url")}`],
        {},
        ALLOWED_ORIGIN,
      );
      assert.deepEqual(
        subprotocol,
        { status: 101, protocol: "acp" },
        "the server selects acp, never the bearer subprotocol",
      );
    },
  );
});
