/**
 * Remote test clients: the 1.x `ClientSideConnection` on a remote stream, for either client implementation and
 * either profile. acpkit's comes through its drop-in entries (`@acpkit/sdk/experimental/http-client`, `/ws-client`),
 * the official one through `@agentclientprotocol/sdk/experimental/*` 2.4.0 (its transports) with the 1.x class
 * from `sdk-1.9` (2.4.0 has no classes): same code, other import. The client serves files, terminals and
 * permissions with the interop suite's real `ClientHost`.
 */
import type * as acp from "sdk-1.9";
import { WebSocket } from "ws";
import { ClientHost } from "../../interop/support/client-host.js";

export type ClientImpl = "acpkit" | "official";
export type Profile = "http" | "websocket";

export const CLIENT_IMPLS: readonly ClientImpl[] = ["acpkit", "official"];
export const PROFILES: readonly Profile[] = ["http", "websocket"];

type HttpClientModule = typeof import("@agentclientprotocol/sdk/experimental/http-client");
type WsClientModule = typeof import("@agentclientprotocol/sdk/experimental/ws-client");
type CookieStore = InstanceType<HttpClientModule["MemoryAcpCookieStore"]>;

const ACPKIT = new URL("../../../../src/entries/", import.meta.url).href;

async function modules(impl: ClientImpl): Promise<{ sdk: typeof acp; http: HttpClientModule; ws: WsClientModule }> {
  if (impl === "official") {
    return {
      sdk: await import("sdk-1.9"),
      http: await import("@agentclientprotocol/sdk/experimental/http-client"),
      ws: await import("@agentclientprotocol/sdk/experimental/ws-client"),
    };
  }
  return {
    sdk: (await import(`${ACPKIT}index.js`)) as typeof acp,
    http: (await import(`${ACPKIT}experimental/http-client.js`)) as HttpClientModule,
    ws: (await import(`${ACPKIT}experimental/ws-client.js`)) as WsClientModule,
  };
}

export interface RemoteClient {
  readonly impl: ClientImpl;
  readonly profile: Profile;
  readonly connection: acp.ClientSideConnection;
  readonly host: ClientHost;
  /** Closes the connection (acpkit: close(); official: the stream's writable) and waits until it reports closed. */
  close(): Promise<void>;
}

export interface RemoteClientOptions {
  headers?: Record<string, string>;
  cookieStore?: CookieStore;
  maxMessageBytes?: number;
}

/** A cookie store of the client implementation (to share across connections). */
export async function cookieStoreOf(impl: ClientImpl): Promise<CookieStore> {
  return new (await modules(impl)).http.MemoryAcpCookieStore();
}

/**
 * Connects a `ClientSideConnection` of `impl` to `url` over `profile`, hosting `host` (files, terminals, permissions).
 */
export async function connectClient(
  impl: ClientImpl,
  profile: Profile,
  url: string,
  host: ClientHost,
  options: RemoteClientOptions = {},
): Promise<RemoteClient> {
  const { sdk, http, ws } = await modules(impl);
  const common = {
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.cookieStore ? { cookieStore: options.cookieStore } : {}),
  };
  const stream =
    profile === "http"
      ? http.createHttpStream(url, {
          ...common,
          ...(options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : {}),
        })
      : ws.createWebSocketStream(url.replace(/^http/, "ws"), { ...common, WebSocket: WebSocket as never });
  const client: acp.Client = {
    requestPermission: (params) => host.requestPermission(params),
    sessionUpdate: async (params) => host.sessionUpdate(params),
    readTextFile: (params) => host.readTextFile(params),
    writeTextFile: (params) => host.writeTextFile(params),
    createTerminal: async (params) => host.terminals.create(params),
    terminalOutput: async (params) => host.terminals.output(params),
    waitForTerminalExit: (params) => host.terminals.waitForExit(params),
    killTerminal: async (params) => host.terminals.kill(params),
    releaseTerminal: async (params) => host.terminals.release(params),
  };
  const connection = new sdk.ClientSideConnection(() => client, stream);
  return {
    impl,
    profile,
    connection,
    host,
    close: async () => {
      const closable = connection as unknown as { close?: () => void };
      if (typeof closable.close === "function") closable.close();
      else await stream.writable.close().catch(() => {});
      await connection.closed;
    },
  };
}

export const CAPABILITIES = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };

export async function initialize(client: RemoteClient): Promise<acp.InitializeResponse> {
  return client.connection.initialize({
    protocolVersion: 1,
    clientCapabilities: CAPABILITIES,
    clientInfo: { name: "remote-e2e", version: "1.0.0" },
  });
}

export { ClientHost };
