/**
 * HTTP/2, as the RFD requires for Streamable HTTP: over TLS (ALPN h2, with HTTP/1.1 and WebSocket on the same port
 * for clients that need it) with a self-signed certificate made for the test, and cleartext h2 (prior knowledge) when
 * opted in. A `node:http2` client runs the whole flow on one multiplexed session; `acp serve --cert --key` too, and
 * `acp serve --cert --key --http1` (node:https) serves whole sessions over HTTPS/1.1 and WSS and offers no h2.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect as tlsConnect } from "node:tls";
import { createHttpStream } from "../../../src/entries/experimental/http-client.js";
import { listenAcp, type ListeningAcpServer } from "../../../src/entries/node.js";
import { testAgent } from "../../../src/remote/server/testing/test-agent.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { officialHttp, officialWebSocket, type MessageStream } from "./support/client-transports.js";
import { H2Client } from "./support/h2-client.js";
import { httpsFetch } from "./support/https-fetch.js";
import { remoteClient } from "./support/remote-client.js";
import { startServe } from "./support/serve-process.js";

const STEP = { timeout: 30_000 };
const init = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } };

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl; undefined when openssl is missing. */
function selfSignedCertificate(
  dir: string,
): { cert: Buffer; key: Buffer; certFile: string; keyFile: string } | undefined {
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "-keyout",
        keyFile,
        "-out",
        certFile,
      ],
      { stdio: "ignore" },
    );
  } catch {
    return undefined;
  }
  return { cert: readFileSync(certFile), key: readFileSync(keyFile), certFile, keyFile };
}

/** The Streamable HTTP flow on one HTTP/2 session: initialize, streams, session/new, a streamed prompt. */
async function h2Flow(client: H2Client, path: string, auth: Record<string, string>): Promise<void> {
  const answer = await client.request("POST", path, auth, init);
  assert.equal(answer.status, 200, answer.body);
  const connectionId = answer.headers["acp-connection-id"] as string;
  assert.ok(connectionId);
  const ids = { ...auth, "acp-connection-id": connectionId };
  const connection = await client.events(path, ids);
  assert.equal(connection.status, 200);
  assert.equal(
    (
      await client.request("POST", path, ids, {
        jsonrpc: "2.0",
        id: 1,
        method: "session/new",
        params: { cwd: "/", mcpServers: [] },
      })
    ).status,
    202,
  );
  const sessionId = (await connection.next()).result.sessionId as string;
  const session = await client.events(path, { ...ids, "acp-session-id": sessionId });
  const prompt = {
    jsonrpc: "2.0",
    id: 2,
    method: "session/prompt",
    params: { sessionId, prompt: [{ type: "text", text: "stream 50" }] },
  };
  assert.equal((await client.request("POST", path, { ...ids, "acp-session-id": sessionId }, prompt)).status, 202);
  const texts: string[] = [];
  for (;;) {
    const event = await session.next();
    assert.ok(event, "the session stream ended early");
    if (event.id === 2) {
      assert.deepEqual(event.result, { stopReason: "end_turn" });
      break;
    }
    texts.push(event.params.update.content.text);
  }
  assert.deepEqual(
    texts,
    Array.from({ length: 50 }, (_, i) => `chunk ${i}`),
  );
  assert.equal((await client.request("DELETE", path, ids)).status, 202);
  assert.equal(await connection.next(), undefined, "DELETE ends the connection stream");
}

describe("TLS: HTTP/2 with HTTP/1.1 and WebSocket fallback on the same port", () => {
  let dir: string;
  let tls: ReturnType<typeof selfSignedCertificate>;
  let listening: ListeningAcpServer | undefined;

  before(async () => {
    dir = makeTempDir("acp-remote-tls-");
    tls = selfSignedCertificate(dir);
    if (tls)
      listening = await listenAcp({
        agent: testAgent().app,
        tls: { cert: tls.cert, key: tls.key },
        token: "tls-token",
      });
  });
  after(async () => {
    await listening?.close();
    removeTempDir(dir);
  });

  it("a node:http2 client negotiates h2 and runs the whole flow on one session", STEP, async (t) => {
    if (!tls || !listening) return t.skip("openssl is not available to make a certificate");
    assert.match(listening.url, /^https:\/\/127\.0\.0\.1:\d+\/acp$/);
    const client = new H2Client(
      `https://127.0.0.1:${listening.port}`,
      { authorization: "Bearer tls-token" },
      { ca: tls.cert },
    );
    assert.equal(await client.connected(), "h2");
    await h2Flow(client, "/acp", { authorization: "Bearer tls-token" });
    client.close();
  });

  it("the official WebSocket client upgrades over HTTP/1.1 on the same TLS port (wss)", STEP, async (t) => {
    if (!tls || !listening) return t.skip("openssl is not available to make a certificate");
    const client = await remoteClient(
      officialWebSocket.open({
        url: listening.url,
        webSocketUrl: listening.webSocketUrl,
        token: "tls-token",
        ca: tls.cert,
      }),
      dir,
    );
    await client.initialize();
    const sessionId = await client.newSession(dir);
    assert.equal((await client.prompt(sessionId, "stream 20")).stopReason, "end_turn");
    assert.equal(client.host.texts(0, sessionId).length, 20);
    client.close();
    await client.closed;
  });

  it("acp serve --cert --key serves h2", STEP, async (t) => {
    if (!tls) return t.skip("openssl is not available to make a certificate");
    const serve = await startServe([
      "--cert",
      tls.certFile,
      "--key",
      tls.keyFile,
      "--agent",
      `${JSON.stringify(process.execPath)} -e "process.stdin.resume()"`,
    ]);
    try {
      assert.match(serve.url, /^https:/);
      assert.match(serve.webSocketUrl, /^wss:/);
      const { port } = new URL(serve.url);
      const client = new H2Client(`https://127.0.0.1:${port}`, {}, { ca: tls.cert });
      assert.equal(await client.connected(), "h2");
      assert.equal((await client.request("GET", "/healthz")).status, 200);
      assert.equal((await client.request("POST", "/acp", {}, init)).status, 401, "the token is required over TLS too");
      client.close();
    } finally {
      assert.deepEqual(await serve.stop(), { code: 0, signal: null });
    }
  });
});

/** The protocol the server picks by ALPN when a client offers h2 and http/1.1 (false: it took part in no ALPN). */
function negotiated(port: number, ca: Buffer): Promise<string | false> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(
      { host: "127.0.0.1", port, ca, servername: "localhost", ALPNProtocols: ["h2", "http/1.1"] },
      () => {
        resolve(socket.alpnProtocol ?? false);
        socket.end();
      },
    );
    socket.on("error", reject);
  });
}

describe("TLS with HTTP/1.1 only: acp serve --cert --key --http1 (node:https)", () => {
  let dir: string;
  let tls: ReturnType<typeof selfSignedCertificate>;
  before(() => {
    dir = makeTempDir("acp-remote-https1-");
    tls = selfSignedCertificate(dir);
  });
  after(() => removeTempDir(dir));

  it(
    "no h2 by ALPN; a whole session over HTTPS/1.1 (Streamable HTTP, a fetch trusting the certificate) and over WSS",
    { timeout: 60_000 },
    async (t) => {
      if (!tls) return t.skip("openssl is not available to make a certificate");
      const serve = await startServe([
        "--cert",
        tls.certFile,
        "--key",
        tls.keyFile,
        "--http1",
        "--token",
        "https1-token",
      ]);
      try {
        assert.match(serve.url, /^https:\/\/127\.0\.0\.1:\d+\/acp$/);
        assert.match(serve.webSocketUrl, /^wss:/);
        const port = Number(new URL(serve.url).port);
        assert.notEqual(await negotiated(port, tls.cert), "h2", "HTTP/2 is not offered with --http1");
        // Streamable HTTP over HTTPS/1.1, the reference agent behind it: initialize, session, a streamed prompt,
        // DELETE.
        const https = httpsFetch(tls.cert);
        const overHttps = await remoteClient(
          createHttpStream(serve.url, { fetch: https.fetch, token: "https1-token" }) as MessageStream,
          dir,
          "acpkit",
        );
        assert.equal((await overHttps.initialize()).agentInfo?.name, "acpkit-reference-agent");
        const sessionId = await overHttps.newSession(dir);
        assert.equal((await overHttps.prompt(sessionId, "/stream 4")).stopReason, "end_turn");
        assert.equal(overHttps.host.texts(0, sessionId).join(""), "chunk 1\nchunk 2\nchunk 3\nchunk 4\n");
        overHttps.close();
        await overHttps.closed.catch(() => {});
        await serve.waitForStderr(/connection [0-9a-f]{8} closed \(deleted\)/);
        assert.ok(
          https.versions.length >= 4 && https.versions.every((version) => version === "1.1"),
          `HTTP versions: ${https.versions.join(" ")}`,
        );
        // WebSocket over the same TLS port.
        const overWss = await remoteClient(
          officialWebSocket.open({
            url: serve.url,
            webSocketUrl: serve.webSocketUrl,
            token: "https1-token",
            ca: tls.cert,
          }),
          dir,
        );
        await overWss.initialize();
        const wsSession = await overWss.newSession(dir);
        assert.equal((await overWss.prompt(wsSession, "/stream 3")).stopReason, "end_turn");
        assert.equal(overWss.host.texts(0, wsSession).length, 3);
        overWss.close();
        await overWss.closed.catch(() => {});
      } finally {
        assert.deepEqual(await serve.stop(), { code: 0, signal: null });
      }
    },
  );
});

describe("cleartext HTTP/2 (h2c), opt-in, beside HTTP/1.1 on one port", () => {
  let listening: ListeningAcpServer;
  before(async () => {
    listening = await listenAcp({ agent: testAgent().app, h2c: true, token: "h2c-token" });
  });
  after(() => listening.close());

  it("h2 with prior knowledge runs the whole flow", STEP, async () => {
    const client = new H2Client(`http://127.0.0.1:${listening.port}`, { authorization: "Bearer h2c-token" });
    await client.connected();
    await h2Flow(client, "/acp", { authorization: "Bearer h2c-token" });
    client.close();
  });

  it("HTTP/1.1 clients (the official HTTP and WebSocket clients) work on the same port", STEP, async () => {
    for (const transport of [officialHttp, officialWebSocket]) {
      const client = await remoteClient(
        transport.open({ url: listening.url, webSocketUrl: listening.webSocketUrl, token: "h2c-token" }),
        "/tmp",
        transport.impl,
      );
      await client.initialize();
      const sessionId = await client.newSession("/tmp");
      assert.equal((await client.prompt(sessionId, "stream 5")).stopReason, "end_turn", transport.name);
      client.close();
      await client.closed;
    }
  });
});
