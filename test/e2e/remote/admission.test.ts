/**
 * `acp serve` admits from the headers, over raw sockets: a request is refused (token, path, Host, Origin, method)
 * without a byte of its body, a body is read under a deadline, the raw path is routed without resolving dot segments,
 * sockets that have not authenticated get a short header deadline and a cap per server and per address (the oldest
 * make room for a newcomer), and a client with the token and the health check get through while strangers hold the
 * cap, even under a 400-descriptor limit.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { track } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { ACP_CLI } from "../support/programs.js";
import { acpkitHttp } from "./support/client-transports.js";
import { openRaw, requestHead, type RawSocket } from "./support/raw-socket.js";
import { remoteClient } from "./support/remote-client.js";
import { fixtureAgentCommand, startServe, type ServeProcess } from "./support/serve-process.js";

const STEP = { timeout: 60_000 };
const TOKEN = "admission-token";
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let work: string;
before(() => void (work = makeTempDir("acp-admission-")));
after(() => removeTempDir(work));

/** Runs a whole turn as a client with the token: initialize, session/new, a prompt answered end_turn. */
async function turn(serve: { url: string; webSocketUrl: string }, token: string): Promise<string> {
  const client = await remoteClient(acpkitHttp.open({ ...serve, token }), work, "acpkit");
  try {
    await client.initialize();
    const sessionId = await client.newSession(work);
    return (await client.prompt(sessionId, "hello")).stopReason;
  } finally {
    client.close();
  }
}

describe("acp serve: admission from the headers", () => {
  let serve: ServeProcess;
  let port: number;
  let host: string;
  const sockets: RawSocket[] = [];
  const open = async (localAddress?: string) => {
    const socket = await openRaw(port, localAddress);
    sockets.push(socket);
    return socket;
  };
  before(async () => {
    serve = await startServe([
      "--token",
      TOKEN,
      "--agent",
      fixtureAgentCommand(),
      "--grace",
      "0",
      "--body-timeout",
      "1500",
      "--headers-timeout",
      "1500",
      "--max-unauthenticated",
      "24",
      "--max-unauthenticated-per-address",
      "16",
    ]);
    port = Number(new URL(serve.url).port);
    host = `127.0.0.1:${port}`;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    assert.deepEqual(await serve.stop(), { code: 0, signal: null });
  });

  it("a request is refused from its headers, a 16 MiB body announced and not one byte of it sent", STEP, async () => {
    const body = { "Content-Type": "application/json", "Content-Length": String(16 * 1024 * 1024) };
    const cases: Array<[string, string, string, Record<string, string>, number]> = [
      ["no token", "POST", "/acp", { Host: host, ...body }, 401],
      ["a wrong token", "POST", "/acp", { Host: host, Authorization: "Bearer nope", ...body }, 401],
      [
        "a wrong path, with the token",
        "POST",
        "/elsewhere",
        { Host: host, Authorization: `Bearer ${TOKEN}`, ...body },
        404,
      ],
      ["a foreign Host", "POST", "/acp", { Host: `evil.example:${port}`, ...body }, 403],
      ["a Host that is no authority", "POST", "/acp", { Host: `[::1].evil.example:${port}`, ...body }, 400],
      ["a foreign Origin", "POST", "/acp", { Host: host, Origin: "https://evil.example", ...body }, 403],
      ["TRACE", "TRACE", "/acp", { Host: host, Authorization: `Bearer ${TOKEN}` }, 405],
      ["PUT, with the token", "PUT", "/acp", { Host: host, Authorization: `Bearer ${TOKEN}`, ...body }, 405],
    ];
    for (const [what, method, target, headers, status] of cases) {
      const socket = await open();
      const started = Date.now();
      socket.write(requestHead(method, target, headers));
      const head = await socket.head(3000).catch((error: Error) => assert.fail(`${what}: ${error.message}`));
      assert.equal(head.status, status, what);
      assert.ok(Date.now() - started < 2000, `${what}: answered at once, not after a body`);
      if (method === "TRACE" || method === "PUT") assert.equal(head.headers.allow, "GET, POST, DELETE", what);
      if (headers["Content-Length"]) {
        assert.equal(head.headers.connection, "close", `${what}: the unread body is not waited for`);
        await socket.whenClosed(3000);
      }
    }
    assert.doesNotMatch(serve.stderr(), /failed on a request/, "no 500 anywhere");
  });

  it("the raw path is routed: dot segments, encoded dots and a Host carrying a path are not /acp", STEP, async () => {
    const auth = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
    for (const target of ["/healthz/../acp", "/%2e%2e/acp", "/%2E/acp", "/./acp", "/acp/.", "/x/..%2facp"]) {
      const socket = await open();
      socket.write(
        requestHead("POST", target, { Host: host, ...auth, "Content-Length": String(INITIALIZE.length) }) + INITIALIZE,
      );
      assert.equal((await socket.head()).status, 404, target);
    }
    const rewritten = await open();
    rewritten.write(
      requestHead("POST", "/anything", {
        Host: `127.0.0.1:${port}/acp#`,
        ...auth,
        "Content-Length": String(INITIALIZE.length),
      }) + INITIALIZE,
    );
    assert.equal((await rewritten.head()).status, 400, "a Host with a path is 400, not a way to /acp");
    const healthz = await open();
    healthz.write(requestHead("GET", "/acp/../healthz", { Host: host }));
    assert.equal((await healthz.head()).status, 404);
    const plain = await open();
    plain.write(
      requestHead("POST", "/acp", { Host: host, ...auth, "Content-Length": String(INITIALIZE.length) }) + INITIALIZE,
    );
    assert.equal((await plain.head()).status, 200, "the endpoint itself");
  });

  it("a body that does not arrive within --body-timeout is 408, even from a client with the token", STEP, async () => {
    const socket = await open();
    const started = Date.now();
    socket.write(
      requestHead("POST", "/acp", {
        Host: host,
        Authorization: `Bearer ${TOKEN}`,
        "Content-Type": "application/json",
        "Content-Length": "1000",
      }) + '{"jsonrpc":',
    );
    const head = await socket.head(6000);
    assert.equal(head.status, 408);
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 1400 && elapsed < 5000, `cut at the deadline (${elapsed} ms)`);
    await socket.whenClosed(3000);
  });

  it(
    "--headers-timeout: an idle or dripping stranger is closed; a socket that authenticated is kept",
    STEP,
    async () => {
      const authenticated = await open();
      authenticated.write(
        requestHead("POST", "/acp", {
          Host: host,
          Authorization: `Bearer ${TOKEN}`,
          "Content-Type": "application/json",
          "Content-Length": String(INITIALIZE.length),
        }) + INITIALIZE,
      );
      assert.equal((await authenticated.head()).status, 200);
      const idle = await open();
      const drip = await open();
      const started = Date.now();
      const text = requestHead("POST", "/acp", { Host: host, "X-Padding": "a".repeat(200) });
      let index = 0;
      const dripping = setInterval(() => drip.write(text[index++ % text.length]!), 100);
      try {
        await idle.whenClosed(5000);
        await drip.whenClosed(5000);
      } finally {
        clearInterval(dripping);
      }
      assert.ok(Date.now() - started < 5000, "closed at the header deadline, not after a minute");
      await sleep(Math.max(0, 3500 - (Date.now() - started)));
      assert.equal(authenticated.closed, false, "the socket that authenticated is still open");
    },
  );

  it(
    "caps: one address holds at most its share, the oldest go first; the token and /healthz still get in",
    STEP,
    async () => {
      // Its own server, with a header deadline long enough that only the caps close sockets here.
      const capped = await startServe([
        "--token",
        TOKEN,
        "--agent",
        fixtureAgentCommand(),
        "--grace",
        "0",
        "--max-unauthenticated",
        "24",
        "--max-unauthenticated-per-address",
        "16",
      ]);
      const cappedPort = Number(new URL(capped.url).port);
      const openCapped = async (localAddress: string) => {
        const socket = await openRaw(cappedPort, localAddress);
        sockets.push(socket);
        return socket;
      };
      try {
        await capsHold(capped, openCapped);
      } finally {
        assert.deepEqual(await capped.stop(), { code: 0, signal: null });
      }
    },
  );

  async function capsHold(capped: ServeProcess, open: (localAddress: string) => Promise<RawSocket>): Promise<void> {
    const host = new URL(capped.url).host;
    const first = await Promise.all(Array.from({ length: 12 }, () => open("127.0.0.2")));
    const flood = [];
    for (let i = 0; i < 40; i++) flood.push(await open("127.0.0.1"));
    // Young sockets get a second to speak before a cap closes them (a burst of real clients is not cut): wait it out.
    await sleep(1600);
    const openFlood = flood.filter((socket) => !socket.closed);
    assert.ok(openFlood.length <= 16, `at most 16 from one address (${openFlood.length} open)`);
    assert.ok(
      flood.slice(-8).every((socket) => !socket.closed),
      "the newest are kept: eviction takes the oldest",
    );
    const openFirst = first.filter((socket) => !socket.closed).length;
    assert.ok(openFirst >= 8, `another address keeps its share (${openFirst} of 12 open)`);
    assert.ok(openFirst + openFlood.length <= 24, "the server cap holds");
    const health = await fetch(`http://${host}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(await turn(capped, TOKEN), "end_turn");
  }

  it(
    "ids beyond 2^53 pass exactly through the stdio agent; an id that is not one is -32600 at once",
    STEP,
    async () => {
      const auth = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
      const post = async (body: string, extra: Record<string, string> = {}) => {
        const response = await fetch(serve.url, { method: "POST", headers: { ...auth, ...extra }, body });
        return {
          status: response.status,
          text: await response.text(),
          connectionId: response.headers.get("acp-connection-id"),
        };
      };
      const initialize = (id: string) => INITIALIZE.replace('"id":0', `"id":${id}`);
      const big = await post(initialize("12345678901234567890123"));
      assert.equal(big.status, 200);
      assert.match(big.text, /^\{"jsonrpc":"2\.0","id":12345678901234567890123,"result":/);
      for (const id of ["1e400", '{"a":1}', "[1]", "true"]) {
        const started = Date.now();
        const refused = await post(initialize(id));
        assert.equal(refused.status, 400, id);
        assert.equal(JSON.parse(refused.text).error.code, -32600, id);
        assert.ok(Date.now() - started < 2000, `${id}: at once`);
        assert.equal(refused.connectionId, null, `${id}: no connection, no agent`);
      }
    },
  );
});

describe(
  "acp serve under a 400-descriptor limit",
  { skip: process.platform === "linux" ? false : "ulimit and /proc" },
  () => {
    it(
      "390 idle strangers do not keep a client with the token or the health check out",
      { timeout: 90_000 },
      async () => {
        const child = spawn(
          "/bin/sh",
          [
            "-c",
            `ulimit -n 400 && exec "$0" "$@"`,
            process.execPath,
            ACP_CLI,
            "serve",
            "--port",
            "0",
            "--token",
            TOKEN,
            "--agent",
            fixtureAgentCommand(),
            "--grace",
            "0",
          ],
          { stdio: ["ignore", "pipe", "pipe"] },
        );
        track(child);
        let stdout = "";
        let stderr = "";
        child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        const deadline = Date.now() + 20_000;
        while (!/^websocket: /m.test(stdout)) {
          if (Date.now() > deadline) assert.fail(`acp serve did not start: ${stderr}`);
          await sleep(50);
        }
        const url = /^url: (\S+)$/m.exec(stdout)![1]!;
        const webSocketUrl = /^websocket: (\S+)$/m.exec(stdout)![1]!;
        const port = Number(new URL(url).port);
        const idle: RawSocket[] = [];
        try {
          for (let i = 0; i < 390; i++) idle.push(await openRaw(port));
          await sleep(300);
          const health = await fetch(`http://127.0.0.1:${port}/healthz`);
          assert.equal(health.status, 200);
          assert.equal(await turn({ url, webSocketUrl }, TOKEN), "end_turn");
          const held = idle.filter((socket) => !socket.closed).length;
          assert.ok(held <= 100, `at most a quarter of the descriptors held by strangers (${held})`);
        } finally {
          for (const socket of idle) socket.destroy();
          child.kill("SIGTERM");
          await new Promise((resolve) => child.once("exit", resolve));
        }
        assert.doesNotMatch(stderr, /EMFILE/);
      },
    );
  },
);
