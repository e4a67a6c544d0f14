/**
 * `@acpkit/sdk/experimental/http-client` and `/ws-client` export what
 * `@agentclientprotocol/sdk/experimental/http-client` and `/ws-client` 2.4.0 export: the same values (checked here at
 * run time) and the same types (checked by tsc: the assignments below only compile if acpkit's shapes accept what code
 * written for the official ones passes).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as officialHttp from "@agentclientprotocol/sdk/experimental/http-client";
import * as officialWs from "@agentclientprotocol/sdk/experimental/ws-client";
import * as http from "../src/entries/experimental/http-client.js";
import * as ws from "../src/entries/experimental/ws-client.js";

test("experimental/http-client exports every value the official entry does", () => {
  assert.deepEqual(
    Object.keys(officialHttp).filter((name) => !(name in http)),
    [],
  );
  assert.equal(http.DEFAULT_MAX_MESSAGE_BYTES, officialHttp.DEFAULT_MAX_MESSAGE_BYTES);
});

test("experimental/ws-client exports every value the official entry does", () => {
  assert.deepEqual(
    Object.keys(officialWs).filter((name) => !(name in ws)),
    [],
  );
});

test("the stores are interchangeable: each takes and gives back cookies the same way", () => {
  for (const Store of [http.MemoryAcpCookieStore, officialHttp.MemoryAcpCookieStore]) {
    const store = new Store();
    store.store(new Headers({ "Set-Cookie": "a=1; Path=/" }));
    const headers = new Headers();
    store.apply(headers);
    assert.equal(headers.get("Cookie"), "a=1");
  }
});

// Compile-time: options and types written for the official entries are accepted by acpkit's.
const officialHttpOptions: officialHttp.HttpStreamOptions = {
  headers: { a: "b" },
  cookies: "omit",
  maxMessageBytes: 10,
  cookieStore: new officialHttp.MemoryAcpCookieStore(),
  fetch: globalThis.fetch,
};
const officialWsOptions: officialWs.WebSocketStreamOptions = {
  protocols: ["acp"],
  headers: { a: "b" },
  cookies: "include",
  cookieStore: new officialWs.MemoryAcpCookieStore(),
  WebSocket: undefined as unknown as officialWs.WebSocketConstructor,
};
export const typeChecks = [
  ((): http.HttpStreamOptions => officialHttpOptions)(),
  ((): ws.WebSocketStreamOptions => officialWsOptions)(),
  ((store: officialHttp.AcpCookieStore): http.AcpCookieStore => store)(new officialHttp.MemoryAcpCookieStore()),
  ((ctor: officialWs.WebSocketConstructor | undefined): ws.WebSocketConstructor | undefined => ctor)(undefined),
  ((socket: officialWs.WebSocketLike | undefined): ws.WebSocketLike | undefined => socket)(undefined),
  ((create: typeof http.createHttpStream) =>
    create as (url: string, options?: officialHttp.HttpStreamOptions) => unknown)(http.createHttpStream),
  ((create: typeof ws.createWebSocketStream) =>
    create as (url: string, options?: officialWs.WebSocketStreamOptions) => unknown)(ws.createWebSocketStream),
];
