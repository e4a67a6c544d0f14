/**
 * The test client's face, the same for both APIs: the scenario drives a `Driver`, and each API's driver (1.x
 * classes, 2.x app) implements it with that API's calls only, on the implementation under test.
 */
import type { ClientHost } from "./client-host.js";
import type { Impl, TapEvent } from "./impl.js";
import type { SpawnedAgent } from "./spawn.js";

export interface InitializeResult {
  protocolVersion: number;
  agentCapabilities?: {
    loadSession?: boolean;
    promptCapabilities?: { image?: boolean; audio?: boolean; embeddedContext?: boolean };
  } | null;
  agentInfo?: { name: string; version: string } | null;
}

export interface Driver {
  readonly impl: Impl;
  readonly host: ClientHost;
  /** Events from acpkit's tap (both directions), when the client is acpkit and has a tap. */
  readonly tapped: TapEvent[] | undefined;
  initialize(): Promise<InitializeResult>;
  newSession(cwd: string): Promise<string>;
  loadSession(sessionId: string, cwd: string): Promise<unknown>;
  /** `signal` sends `$/cancel_request` when aborted (SendRequestOptions.cancellationSignal). */
  prompt(sessionId: string, text: string, signal?: AbortSignal): Promise<{ stopReason: string }>;
  cancel(sessionId: string): Promise<void>;
  extMethod(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  extNotification(method: string, params: Record<string, unknown>): Promise<void>;
  /** The client's own close(), when its API has one (undefined otherwise). */
  readonly close: (() => void) | undefined;
  readonly closed: Promise<void>;
  /** 2.x only: a prompt through `buildSession(cwd).start()` and `ActiveSession.nextUpdate()`. */
  activeSessionTurn?(cwd: string, text: string): Promise<{ sessionId: string; texts: string[]; stopReason: string }>;
}

/**
 * Options of a driver: `maxMessageBytes` is the official ndJsonStream option; `logger` is acpkit's (ignored otherwise).
 */
export interface DriverOptions {
  maxMessageBytes?: number;
  logger?: Logger;
}

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export type DriverFactory = (
  impl: Impl,
  agent: SpawnedAgent,
  host: ClientHost,
  options?: DriverOptions,
) => Promise<Driver>;

export const CLIENT_CAPABILITIES = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
};

export const CLIENT_INFO = { name: "interop-test-client", version: "1.0.0" };
