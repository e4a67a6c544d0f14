/**
 * Types shared by the 2.x apps (`agent()` and `client()`): options, the typed method maps of each protocol flavor,
 * and the pieces handler contexts are made of. Side-specific contexts live with their app.
 */
import type { JsonRpcId, Logger, TapListener } from "../jsonrpc/index.js";
import type * as stable from "../protocol/index.js";
import type * as unstable from "../protocol/unstable.js";

/** Options of `agent()` and `client()`: the official `name`, plus acpkit's connection options. */
export interface AppOptions {
  /** Human-readable name of the app, for diagnostics (log lines carry it as `app`). */
  name?: string;
  /**
   * Where connection diagnostics go. Default: warnings and errors to stderr (`defaultLogger`); `silentLogger` for none.
   */
  logger?: Logger;
  /** Default timeout of every outgoing request, in ms. None by default. */
  requestTimeoutMs?: number;
  /**
   * Checking what is sent: `"warn"` (default: report and send), `"strict"` (or `true`), `"off"` (or `false`). See
   * `AcpConnectionOptions`.
   */
  validateOutgoing?: "warn" | "strict" | "off" | boolean;
  /** Reading off-schema results: `"warn"` (default: report and pass through) or `"strict"` (reject). */
  validateResponses?: "warn" | "strict";
  /** Refuse to call a method the peer did not advertise the capability for (default false). */
  enforceCapabilities?: boolean;
  /** Speak stable ACP v1 plus its unstable additions (default false: stable only). */
  unstable?: boolean;
}

/** `AppOptions` that select the unstable flavor: the app's types then include the unstable methods. */
export type UnstableAppOptions = AppOptions & { unstable: true };

/**
 * The typed method maps of one protocol flavor, by wire name: requests map to `{ params; result }`,
 * notifications to `{ params }`. "Agent" maps hold the methods the agent handles, "client" maps those the
 * client handles.
 */
export interface ProtocolTypes {
  readonly agentRequests: object;
  readonly agentNotifications: object;
  readonly clientRequests: object;
  readonly clientNotifications: object;
}

/** The method maps of stable ACP v1 (the default of both apps). */
export interface StableProtocol extends ProtocolTypes {
  readonly agentRequests: stable.AgentRequestMap;
  readonly agentNotifications: stable.AgentNotificationMap;
  readonly clientRequests: stable.ClientRequestMap;
  readonly clientNotifications: stable.ClientNotificationMap;
}

/** The method maps of ACP v1 with its unstable additions (`{ unstable: true }`). */
export interface UnstableProtocol extends ProtocolTypes {
  readonly agentRequests: unstable.AgentRequestMap;
  readonly agentNotifications: unstable.AgentNotificationMap;
  readonly clientRequests: unstable.ClientRequestMap;
  readonly clientNotifications: unstable.ClientNotificationMap;
}

/** The wire names of a method map. */
export type MethodOf<Map> = keyof Map & string;

/**
 * A method name for the untyped overloads of `request` and `notify`: any name but those of `Map` (so a table
 * method always gets its typed overload, and params that do not fit it are a type error, not a silent fallback).
 */
export type ExtensionMethod<M extends string, Map> = M extends MethodOf<Map> ? never : M;

/** The params of request `M` in a request map. */
export type RequestParamsOf<Map, M> = M extends keyof Map ? (Map[M] extends { params: infer P } ? P : never) : never;

/** The result of request `M` in a request map. */
export type RequestResultOf<Map, M> = M extends keyof Map ? (Map[M] extends { result: infer R } ? R : never) : never;

/** The params of notification `M` in a notification map. */
export type NotificationParamsOf<Map, M> = M extends keyof Map
  ? Map[M] extends { params: infer P }
    ? P
    : never
  : never;

/**
 * What a request handler may return for a result type: the result itself, or nothing when the result has no
 * required field (the connection then answers `{}`, as the schema allows).
 */
export type HandlerResult<R> = Record<never, never> extends R ? R | void : R;

/** What every handler context holds, whichever the side. */
export interface HandlerContextBase<Params> {
  /** The method being handled: the actual name in fallback (`"*"`) handlers. */
  method: string;
  /** The params, parsed by the method's schema (or the parser given at registration; raw in fallbacks). */
  params: Params;
  /** Aborted when the peer cancels this request or the connection closes; the connection's signal for notifications. */
  signal: AbortSignal;
}

/** What a request handler context adds: the JSON-RPC id of the request being handled. */
export interface RequestIdentity {
  /** JSON-RPC id of the request currently being handled. */
  requestId: JsonRpcId;
}

/**
 * An open connection of an app, returned by `connect()` (the official SDK calls this interface `AcpConnection`).
 * acpkit adds `peerSupports` and `tap`.
 */
export interface AppConnection {
  /** Aborted when the connection closes; its reason is a `ConnectionClosedError` saying why. */
  readonly signal: AbortSignal;
  /** Resolves once the connection has closed. */
  readonly closed: Promise<void>;
  /** Closes the connection: every pending request rejects with a `ConnectionClosedError` whose cause is `error`. */
  close(error?: unknown): void;
  /** Whether the peer advertised (in `initialize`) the capability `method` needs; true for ungated methods. */
  peerSupports(method: string): boolean;
  /** Sees every message in both directions, timestamped; returns a function that removes the listener. */
  tap(listener: TapListener): () => void;
}
