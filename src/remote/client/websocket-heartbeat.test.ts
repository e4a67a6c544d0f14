/**
 * The WebSocket client's watch on a silent server, over real sockets (`ws` on 127.0.0.1): a server that answers no
 * ping fails the link after an interval with nothing heard; one that answers is kept; nothing is counted while the
 * link does not read its socket; without `pingIntervalMs` nothing is sent.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { WebSocket, WebSocketServer } from "ws";
import type { WebSocketConstructor } from "../websocket-like.js";
import { WebSocketLink } from "./websocket-link.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const servers: WebSocketServer[] = [];
after(() => {
  for (const server of servers) {
    for (const client of server.clients) client.terminate();
    server.close();
  }
});

/** A WebSocket server on 127.0.0.1 that answers pings only when `autoPong`; counts the pings it got. */
async function server(autoPong: boolean): Promise<{ url: string; pings: () => number }> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, autoPong });
  servers.push(wss);
  let pings = 0;
  wss.on("connection", (socket) => socket.on("ping", () => pings++));
  await once(wss, "listening");
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/acp`, pings: () => pings };
}

/** A link to `url`, started; resolves with it and its end (the error it failed with, or undefined). */
async function open(url: string, pingIntervalMs?: number) {
  const link = new WebSocketLink(url, {
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    ...(pingIntervalMs === undefined ? {} : { pingIntervalMs }),
  });
  let ended: unknown = "open";
  link.start({ message: () => {}, problem: () => {}, closed: (cause) => void (ended = cause) });
  await link.opened;
  return { link, ended: () => ended };
}

test("a server that answers no ping fails the link once an interval passed with nothing heard", async () => {
  const { url } = await server(false);
  const { link, ended } = await open(url, 200);
  const started = Date.now();
  while (ended() === "open" && Date.now() - started < 5_000) await sleep(20);
  assert.ok(ended() instanceof Error, "the link ended with an error");
  assert.match((ended() as Error).message, /answered neither a WebSocket ping nor anything else for \d+ s/);
  assert.equal((ended() as Error).name, "TransportFailedError");
  assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
  await link.close();
});

test("a server that answers its pings is kept; without pingIntervalMs nothing is sent", async () => {
  const answering = await server(true);
  const kept = await open(answering.url, 100);
  await sleep(700);
  assert.equal(kept.ended(), "open");
  assert.ok(answering.pings() >= 3, `pings: ${answering.pings()}`);
  await kept.link.close();
  const silent = await server(false);
  const off = await open(silent.url);
  await sleep(400);
  assert.equal(off.ended(), "open");
  assert.equal(silent.pings(), 0);
  await off.link.close();
});

test("while the link does not read its socket, an unanswered ping is not counted", async () => {
  const { url } = await server(false);
  const { link, ended } = await open(url, 100);
  link.pauseInput();
  await sleep(600);
  assert.equal(ended(), "open", "held: the silence is ours, not the server's");
  link.resumeInput();
  const resumed = Date.now();
  while (ended() === "open" && Date.now() - resumed < 5_000) await sleep(20);
  assert.ok(ended() instanceof Error, "after the resume the silent server is found");
  assert.ok(Date.now() - resumed >= 100, "the server had a whole interval again");
  await link.close();
});
