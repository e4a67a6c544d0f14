/**
 * Test clients for shared sessions over real sockets: acpkit's `ClientSideConnection` on acpkit's transports, and the
 * official SDK's 1.9 `ClientSideConnection` (its `extMethod` sends `session/attach` as is) on the official 2.4.0
 * WebSocket transport. Each records every `session/update` (with the server's `seq`), every notification, and the
 * permission requests it was sent; how it answers a permission is up to the test.
 */
import { createHttpStream as officialHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import * as v1 from "sdk-1.9";
import { WebSocket } from "ws";
import { ClientSideConnection } from "../../../../src/entries/index.js";
import { createHttpStream } from "../../../../src/entries/experimental/http-client.js";
import { createWebSocketStream as acpkitWebSocketStream } from "../../../../src/entries/experimental/ws-client.js";

export interface Target {
  url: string;
  webSocketUrl: string;
  token: string;
}

export interface SeenUpdate {
  seq: number | undefined;
  update: any;
}

/** How a participant answers `session/request_permission`: an option id, or "wait" (until the server cancels it). */
export type PermissionAnswer = "wait" | (string & {});

export class TestParticipant {
  readonly updates: SeenUpdate[] = [];
  readonly notifications: { method: string; params: any }[] = [];
  permissionAnswer: PermissionAnswer = "allow";
  /** Called with every notification, updates included, in arrival order. */
  readonly listeners: ((method: string, params: any) => void)[] = [];
  /** File reads asked of this client; when `readGate` is set, a read waits for it before answering. */
  reads = 0;
  readGate: Promise<void> | undefined;
  /** When set, a permission handler waits for it before answering (a user who takes their time). */
  permissionGate: Promise<void> | undefined;
  /** Permission requests received, and how many the server withdrew while the handler waited. */
  permissionsAsked = 0;
  permissionsWithdrawn = 0;
  /** Permission handlers still running. */
  permissionsOpen = 0;
  #waiters: { test: () => boolean; resolve: () => void }[] = [];

  constructor(
    readonly name: string,
    readonly request: (method: string, params: Record<string, unknown>) => Promise<any>,
    readonly notify: (method: string, params: Record<string, unknown>) => Promise<void>,
    readonly close: () => void,
  ) {}

  /** The texts of the agent's message chunks, in arrival order. */
  get texts(): string[] {
    return this.updates
      .filter((seen) => seen.update.sessionUpdate === "agent_message_chunk")
      .map((seen) => seen.update.content.text as string);
  }

  /** Updates of one kind. */
  kind(sessionUpdate: string): SeenUpdate[] {
    return this.updates.filter((seen) => seen.update.sessionUpdate === sessionUpdate);
  }

  until(test: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: timed out waiting for ${what}`)), timeoutMs);
      this.#waiters.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  sawUpdate(params: any): void {
    this.updates.push({ seq: params?._meta?.acpkit?.seq, update: params.update });
    for (const listener of this.listeners) listener("session/update", params);
    this.#check();
  }

  sawNotification(method: string, params: any): void {
    this.notifications.push({ method, params });
    for (const listener of this.listeners) listener(method, params);
    this.#check();
  }

  async answerPermission(params: any, signal: AbortSignal | undefined): Promise<any> {
    this.permissionsAsked++;
    this.permissionsOpen++;
    this.#check();
    try {
      if (this.permissionGate !== undefined) await this.permissionGate;
      if (this.permissionAnswer !== "wait")
        return { outcome: { outcome: "selected", optionId: this.permissionAnswer } };
      await new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        signal?.addEventListener("abort", () => resolve(), { once: true });
      });
      this.permissionsWithdrawn++;
      return { outcome: { outcome: "cancelled" } };
    } finally {
      this.permissionsOpen--;
      this.#check();
    }
  }

  async readTextFile(params: any): Promise<{ content: string }> {
    this.reads++;
    this.#check();
    if (this.readGate !== undefined) await this.readGate;
    return { content: `${this.name}:${params.path}` };
  }

  #check(): void {
    const ready = this.#waiters.filter((waiter) => waiter.test());
    this.#waiters = this.#waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve();
  }
}

const CLIENT_INFO = { name: "shared-test", version: "1.0.0" };

/** acpkit's client on acpkit's WebSocket or Streamable HTTP transport. */
export async function acpkitParticipant(
  name: string,
  target: Target,
  profile: "websocket" | "http",
  token = target.token,
  /** Say in initialize that this client knows shared sessions (it then gets the server's update kinds). */
  sharingAware = false,
): Promise<TestParticipant> {
  const headers = { Authorization: `Bearer ${token}` };
  const stream =
    profile === "http"
      ? createHttpStream(target.url, { headers })
      : acpkitWebSocketStream(target.webSocketUrl, { WebSocket: WebSocket as never, headers, protocols: ["acp"] });
  const ref: { participant?: TestParticipant } = {};
  const connection = new ClientSideConnection(
    () => ({
      sessionUpdate: (params: any) => ref.participant!.sawUpdate(params),
      requestPermission: (params: any, context?: any) => ref.participant!.answerPermission(params, context?.signal),
      readTextFile: (params: any) => ref.participant!.readTextFile(params),
      writeTextFile: async () => ({}),
      extNotification: (method: string, params: any) => ref.participant!.sawNotification(method, params),
    }),
    stream as never,
  );
  const participant = (ref.participant = new TestParticipant(
    name,
    (method, params) => connection.connection.request(method, params),
    (method, params) => connection.connection.notify(method, params),
    () => void (stream as { writable: WritableStream }).writable.close().catch(() => {}),
  ));
  await connection.initialize({
    protocolVersion: 1,
    clientCapabilities: {
      fs: { readTextFile: true },
      ...(sharingAware ? { _meta: { acpkit: { sharedSessions: true } } } : {}),
    },
    clientInfo: { ...CLIENT_INFO, name },
  });
  return participant;
}

/** The official SDK's 1.9 client class on the official 2.4.0 WebSocket (or Streamable HTTP) transport. */
export async function officialParticipant(
  name: string,
  target: Target,
  profile: "websocket" | "http" = "websocket",
): Promise<TestParticipant> {
  const headers = { Authorization: `Bearer ${target.token}` };
  const stream =
    profile === "http"
      ? officialHttpStream(target.url, { headers })
      : createWebSocketStream(target.webSocketUrl, { WebSocket: WebSocket as never, headers, protocols: ["acp"] });
  const ref: { participant?: TestParticipant } = {};
  const connection = new v1.ClientSideConnection(
    () =>
      ({
        sessionUpdate: async (params: any) => ref.participant!.sawUpdate(params),
        requestPermission: (params: any) => ref.participant!.answerPermission(params, undefined),
        readTextFile: (params: any) => participant.readTextFile(params),
        writeTextFile: async () => ({}),
        extNotification: async (method: string, params: any) => ref.participant!.sawNotification(method, params),
      }) as unknown as v1.Client,
    stream as never,
  );
  const participant = (ref.participant = new TestParticipant(
    name,
    (method, params) => connection.extMethod(method, params),
    (method, params) => connection.extNotification(method, params),
    () => void (stream as { writable: WritableStream }).writable.close().catch(() => {}),
  ));
  await connection.initialize({
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true } },
    clientInfo: { ...CLIENT_INFO, name },
  });
  return participant;
}
