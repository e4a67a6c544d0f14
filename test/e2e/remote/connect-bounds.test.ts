/**
 * `acp connect` never waits forever, and says why it ends: against a server that accepts TCP and never answers (the
 * WebSocket upgrade, the POSTs), the connect and each request are bounded and it exits 1 with the reason; the end of
 * stdin ends it (while connecting, or with nothing ever answered); "connected" is said once the remote answered,
 * not before; and a server's error text reaches stderr without terminal control sequences.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import { startConnect } from "./support/connect-process.js";
import { fixtureAgentCommand, startServe, type ServeProcess } from "./support/serve-process.js";

const STEP = { timeout: 60_000 };
const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
})}\n`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server that accepts TCP connections, reads what comes, and never answers. */
async function silentServer(): Promise<{ url: string; received: Promise<void>; close(): void }> {
  const sockets = new Set<Socket>();
  let heard!: () => void;
  const received = new Promise<void>((resolve) => (heard = resolve));
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("data", () => heard());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/acp`,
    received,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe("acp connect against a server that never answers", () => {
  const cleanup: Array<() => void> = [];
  after(() => {
    for (const step of cleanup) step();
  });

  it("the connect and the request are bounded: exit 1 with the reason, and no 'connected'", STEP, async () => {
    const silent = await silentServer();
    cleanup.push(silent.close);
    const started = Date.now();
    const bridge = startConnect([silent.url, "--connect-timeout", "1", "--request-timeout", "2"]);
    bridge.child.stdin!.write(INITIALIZE);
    const code = await bridge.exited;
    const elapsed = Date.now() - started;
    assert.equal(code, 1, bridge.stderr());
    // 1 s to connect and 2 s per request, plus starting Node and closing (5 s at most): well under 30 s even on a
    // loaded machine; without the bounds it would wait for the test's timeout.
    assert.ok(elapsed < 30_000, `ended in ${elapsed} ms`);
    assert.match(
      bridge.stderr(),
      /did not accept the WebSocket within 1000 ms|answered nothing within 1 s|did not answer a POST within 2000 ms/,
    );
    assert.doesNotMatch(bridge.stderr(), /connected to/);
  });

  it("Streamable HTTP: the POST is bounded by --request-timeout", STEP, async () => {
    const silent = await silentServer();
    cleanup.push(silent.close);
    const bridge = startConnect([silent.url, "--profile", "http", "--connect-timeout", "30", "--request-timeout", "1"]);
    bridge.child.stdin!.write(INITIALIZE);
    assert.equal(await bridge.exited, 1);
    assert.match(
      bridge.stderr(),
      /did not answer a POST within 1000 ms: it accepted the connection and then said nothing/,
    );
  });

  it(
    "the end of stdin ends it: at once while connecting, promptly with nothing answered (exit 1, said why)",
    STEP,
    async () => {
      const silent = await silentServer();
      cleanup.push(silent.close);
      const connecting = startConnect([silent.url, "--profile", "websocket", "--connect-timeout", "30"]);
      let started = Date.now();
      connecting.child.stdin!.end();
      assert.equal(await connecting.exited, 0);
      assert.ok(Date.now() - started < 5000, "not after the 30 s connect bound");

      const waiting = startConnect([
        silent.url,
        "--profile",
        "http",
        "--connect-timeout",
        "30",
        "--request-timeout",
        "30",
      ]);
      waiting.child.stdin!.write(INITIALIZE);
      await silent.received; // the POST is out, and will never be answered
      started = Date.now();
      waiting.child.stdin!.end();
      assert.equal(await waiting.exited, 1);
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 10_000, `ended ${elapsed} ms after stdin, not after a request timeout`);
      assert.match(waiting.stderr(), /stdin ended before .* answered anything it was sent/);
    },
  );
});

describe("acp connect: what it says", () => {
  let serve: ServeProcess | undefined;
  after(async () => {
    await serve?.stop();
  });

  it("'connected' only once the remote answered the first message", STEP, async () => {
    serve = await startServe(["--agent", fixtureAgentCommand(), "--grace", "0"]);
    for (const profile of ["websocket", "http"]) {
      const bridge = startConnect([serve.url, "--token", serve.token!, "--profile", profile]);
      await sleep(1500);
      assert.doesNotMatch(bridge.stderr(), /connected/, `${profile}: nothing answered yet`);
      bridge.child.stdin!.write(INITIALIZE);
      await bridge.waitForStderr(/connected to .* \((WebSocket|Streamable HTTP)\)/);
      bridge.child.stdin!.end();
      assert.equal(await bridge.exited, 0);
    }
  });

  it("a server's error text reaches stderr without terminal control sequences", STEP, async () => {
    const evil = "\u001b]0;pwned\u0007\u001b[2J\u001b[31mrefused\u009b31m";
    const server = createHttpServer((_request, response) => {
      response.writeHead(403, { "Content-Type": "text/plain" });
      response.end(`Forbidden ${evil}`);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      const bridge = startConnect([`http://127.0.0.1:${port}/acp`, "--profile", "http"]);
      bridge.child.stdin!.write(INITIALIZE);
      assert.equal(await bridge.exited, 1);
      assert.match(bridge.stderr(), /HTTP 403/);
      assert.match(bridge.stderr(), /refused/, "the text itself is kept");
      // eslint-disable-next-line no-control-regex -- looking for escape codes
      assert.doesNotMatch(bridge.stderr(), /[\u001b\u0007\u009b]/, "no escape, bell or CSI reaches the terminal");
    } finally {
      server.close();
    }
  });
});
