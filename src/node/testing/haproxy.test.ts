import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import {
  HAPROXY,
  HAPROXY_TEMPLATE,
  haproxyConfig,
  haproxyUnavailable,
  startTestHaproxy,
  type TestHaproxy,
} from "./haproxy.js";

test("the shipped example is a valid HAProxy configuration", { skip: haproxyUnavailable() }, () => {
  const check = spawnSync(HAPROXY, ["-c", "-f", HAPROXY_TEMPLATE], { encoding: "utf8" });
  assert.equal(check.status, 0, check.stdout + check.stderr);
});

test("the test configuration is the example with the bind, server and timing lines replaced", () => {
  const template = readFileSync(HAPROXY_TEMPLATE, "utf8");
  const config = haproxyConfig(template, {
    bind: { host: "127.0.0.1", port: 9000 },
    servers: [{ port: 9001 }, { name: "b", host: "::1", port: 9002 }],
    checkIntervalMs: 100,
    healthPath: "/healthz",
    adminSocket: "/tmp/x.sock",
  });
  assert.match(config, /^ {4}bind 127\.0\.0\.1:9000$/m);
  assert.match(config, /^ {4}server node1 127\.0\.0\.1:9001 check\n {4}server b \[::1\]:9002 check\n$/m);
  assert.doesNotMatch(config, /10\.0\.0\.1/);
  assert.match(config, /^ {4}default-server inter 100ms fastinter 100ms downinter 100ms fall 2 rise 2$/m);
  assert.match(config, /^ {4}option httpchk GET \/healthz$/m);
  assert.match(config, /^global\n {4}stats socket \/tmp\/x\.sock mode 600 level admin\n/m);
  // Everything else is the example's, line for line.
  const kept = (text: string) =>
    text.split("\n").filter((line) => !/^\s*(bind|server|default-server|option httpchk|stats socket) /.test(line));
  assert.deepEqual(kept(config), kept(template));
  assert.throws(
    () => haproxyConfig("global\n", { bind: { host: "127.0.0.1", port: 1 }, servers: [{ port: 2 }] }),
    /expected exactly one match .* the example and src\/node\/testing\/haproxy\.ts must change together/,
  );
});

/** A backend: answers `/` with its name, `/readyz` with 200 or 503, `/events` with an SSE stream held open. */
interface Backend {
  readonly name: string;
  readonly server: Server;
  readonly port: number;
  ready: boolean;
  hits: number;
  readonly streams: Set<ServerResponse>;
}

async function startBackend(name: string): Promise<Backend> {
  const backend = { name, ready: true, hits: 0, streams: new Set<ServerResponse>() } as Backend & { port: number };
  const server = createServer((request, response) => {
    if (request.url === "/readyz") {
      response.writeHead(backend.ready ? 200 : 503).end();
      return;
    }
    backend.hits++;
    if (request.url === "/events") {
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      response.write(`id: 1\ndata: first from ${name}\n\n`);
      backend.streams.add(response);
      return;
    }
    response.writeHead(200, { "set-cookie": `node=${name}`, "content-type": "text/plain" }).end(name);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  Object.assign(backend, { server, port: (server.address() as AddressInfo).port });
  return backend;
}

async function stopBackend(backend: Backend): Promise<void> {
  for (const stream of backend.streams) stream.destroy();
  backend.server.closeAllConnections();
  await new Promise<void>((resolve) => backend.server.close(() => resolve()));
}

const unavailable = haproxyUnavailable();
let backends: Backend[] = [];
let haproxy: TestHaproxy;

before(async () => {
  if (unavailable !== undefined) return;
  backends = await Promise.all(["a", "b", "c"].map(startBackend));
  haproxy = await startTestHaproxy({ servers: backends.map((b) => ({ name: b.name, port: b.port })) });
  for (const backend of backends) await haproxy.waitForServer(backend.name, "UP");
});

after(async () => {
  await haproxy?.stop();
  await Promise.all(backends.map((backend) => stopBackend(backend).catch(() => undefined)));
});

async function names(count: number, headers: Record<string, string> = {}): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${haproxy.url}/`, { headers });
    assert.equal(response.status, 200, await response.clone().text());
    seen.push(await response.text());
  }
  return seen;
}

test(
  "round-robin over every node, with no stickiness (a node's cookie does not pin)",
  { skip: unavailable },
  async () => {
    const seen = await names(9, { cookie: "node=a" });
    const counts = Object.fromEntries(["a", "b", "c"].map((name) => [name, seen.filter((n) => n === name).length]));
    assert.deepEqual(counts, { a: 3, b: 3, c: 3 });
  },
);

test(
  "clients are told a keep-alive timeout at most half HAProxy's own, not the node's longer one",
  { skip: unavailable },
  async () => {
    // acp serve keeps idle connections for 65 s and says so (`Keep-Alive: timeout=65`); HAProxy closes idle client
    // connections after `timeout http-keep-alive`. A client told the node's figure reuses a connection HAProxy is
    // closing, and a POST sent on it fails (seen under load: "fetch failed: other side closed").
    for (const backend of backends) backend.server.keepAliveTimeout = 65_000;
    const response = await fetch(`${haproxy.url}/`);
    await response.text();
    const told = Number(/^timeout=(\d+)$/.exec(response.headers.get("keep-alive") ?? "")?.[1]);
    const own = Number(/^\s*timeout http-keep-alive (\d+)s$/m.exec(readFileSync(HAPROXY_TEMPLATE, "utf8"))?.[1]);
    assert.ok(told > 0 && told <= own / 2, `clients are told timeout=${told}, HAProxy closes at ${own} s`);
  },
);

test("an SSE stream passes through unbuffered", { skip: unavailable }, async () => {
  const controller = new AbortController();
  const response = await fetch(`${haproxy.url}/events`, { signal: controller.signal });
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  const reader = response.body!.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /^id: 1\ndata: first from [abc]\n\n$/);
  controller.abort();
});

test("a node failing /readyz leaves the rotation and comes back when it passes", { skip: unavailable }, async () => {
  const b = backends[1]!;
  b.ready = false;
  await haproxy.waitForServer("b", "DOWN");
  assert.ok(!(await names(6)).includes("b"));
  b.ready = true;
  await haproxy.waitForServer("b", "UP");
  assert.ok((await names(6)).includes("b"));
});

test(
  "a node that dies: requests are redispatched at once (connection refused is retried elsewhere)",
  { skip: unavailable },
  async () => {
    const c = backends[2]!;
    await stopBackend(c);
    // Before any health check has noticed: none of these fails.
    const seen = await names(6);
    assert.ok(!seen.includes("c"));
    await haproxy.waitForServer("c", "DOWN");
  },
);

test("reload with another server list; stop closes the port", { skip: unavailable }, async () => {
  await haproxy.reload([{ name: "a", port: backends[0]!.port }]);
  await haproxy.waitForServer("a", "UP");
  assert.deepEqual(await names(3), ["a", "a", "a"]);
  assert.deepEqual(Object.keys(await haproxy.serverStates()), ["a"]);
  await haproxy.stop();
  await assert.rejects(fetch(`${haproxy.url}/`));
});
