/**
 * The client transports the remote tests run over: a parameter of every fixture, so the same scenarios run on each.
 * The official SDK 2.4.0's `createHttpStream` and `createWebSocketStream`, and acpkit's through its drop-in entries
 * (`@acpkit/sdk/experimental/http-client`, `/ws-client`: same options, other import), with `ws` as the WebSocket in
 * Node. `impl` says whose connection classes drive the stream (`remoteClient(stream, root, transport.impl)`), so an
 * acpkit cell is acpkit end to end on the client side.
 */
import type { AcpCookieStore } from "@agentclientprotocol/sdk/experimental/http-client";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { WebSocket } from "ws";
import * as acpkitHttpModule from "../../../../src/entries/experimental/http-client.js";
import * as acpkitWsModule from "../../../../src/entries/experimental/ws-client.js";

/** A message stream as both SDKs define it. */
export interface MessageStream {
  readable: ReadableStream<any>;
  writable: WritableStream<any>;
}

/** Where and how to connect. */
export interface RemoteTarget {
  url: string;
  webSocketUrl: string;
  token?: string;
  headers?: Record<string, string>;
  cookieStore?: AcpCookieStore;
  /** A CA to trust (a test's self-signed certificate). */
  ca?: Buffer;
  /** Called with every WebSocket the transport creates (to kill it in fault tests). */
  onWebSocket?: (socket: WebSocket) => void;
}

export interface ClientTransport {
  readonly name: string;
  /** Whose client it is. */
  readonly impl: "official" | "acpkit";
  readonly profile: "http" | "websocket";
  open(target: RemoteTarget): MessageStream;
}

function authHeaders(target: RemoteTarget): Record<string, string> {
  return { ...(target.token ? { Authorization: `Bearer ${target.token}` } : {}), ...target.headers };
}

/** The `ws` WebSocket class, trusting `ca` and reporting each socket it makes. */
function webSocketClass(target: RemoteTarget): typeof WebSocket {
  return class TestWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[], options?: Record<string, unknown>) {
      super(url, protocols, { ...options, ...(target.ca ? { ca: target.ca } : {}) });
      target.onWebSocket?.(this);
    }
  } as typeof WebSocket;
}

export const officialHttp: ClientTransport = {
  name: "official createHttpStream",
  impl: "official",
  profile: "http",
  open: (target) =>
    createHttpStream(target.url, {
      headers: authHeaders(target),
      ...(target.cookieStore ? { cookieStore: target.cookieStore } : {}),
    }) as MessageStream,
};

export const officialWebSocket: ClientTransport = {
  name: "official createWebSocketStream",
  impl: "official",
  profile: "websocket",
  open: (target) =>
    createWebSocketStream(target.webSocketUrl, {
      WebSocket: webSocketClass(target) as never,
      headers: authHeaders(target),
      protocols: ["acp"],
      ...(target.cookieStore ? { cookieStore: target.cookieStore } : {}),
    }) as MessageStream,
};

export const acpkitHttp: ClientTransport = {
  name: "acpkit createHttpStream",
  impl: "acpkit",
  profile: "http",
  open: (target) =>
    acpkitHttpModule.createHttpStream(target.url, {
      headers: authHeaders(target),
      ...(target.cookieStore ? { cookieStore: target.cookieStore as acpkitHttpModule.AcpCookieStore } : {}),
    }) as MessageStream,
};

export const acpkitWebSocket: ClientTransport = {
  name: "acpkit createWebSocketStream",
  impl: "acpkit",
  profile: "websocket",
  open: (target) =>
    acpkitWsModule.createWebSocketStream(target.webSocketUrl, {
      WebSocket: webSocketClass(target) as never,
      headers: authHeaders(target),
      protocols: ["acp"],
      ...(target.cookieStore ? { cookieStore: target.cookieStore as acpkitWsModule.AcpCookieStore } : {}),
    }) as MessageStream,
};

/** Every client transport the scenarios run over. */
export const CLIENT_TRANSPORTS: readonly ClientTransport[] = [
  officialHttp,
  officialWebSocket,
  acpkitHttp,
  acpkitWebSocket,
];
