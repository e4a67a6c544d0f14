/**
 * The small interface every implementation adapter provides. Swapping an implementation is one file in this folder
 * (plus its three-line child main in ../agents/).
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { TurnObserver } from "../agent-logic.js";
import type { Command } from "../workloads.js";

/**
 * `acpkit-node` is acpkit with its Node transports (`@acpkit/sdk/node`: `stdioStream()`, `childProcessStream()`)
 * instead of the drop-in `ndJsonStream(Writable.toWeb(...), Readable.toWeb(...))`; it runs only when BENCH_IMPLS names
 * it.
 */
export type ImplName = "raw" | "official" | "acpkit" | "acpkit-node";
export const IMPL_NAMES: readonly ImplName[] = ["raw", "official", "acpkit", "acpkit-node"];
export const DEFAULT_IMPLS: readonly ImplName[] = ["raw", "official", "acpkit"];

/** What the client side of a run does with what the agent sends. */
export interface ClientHooks {
  /** One `session/update`'s `update` field, as the implementation delivered it. */
  onUpdate(update: { sessionUpdate: string }): void;
  /** Answers `fs/read_text_file`. */
  readTextFile(path: string): string;
}

/** The remote profiles of the transport RFD: WebSocket, Streamable HTTP. */
export type RemoteProfile = "websocket" | "http";

/** A connected, initialized client with one session open. */
export interface BenchClient {
  /** Sends `session/prompt` carrying `cmd` and resolves with the response's result. */
  prompt(cmd: Command): Promise<unknown>;
  /** Closes the connection (does not wait for the peer). */
  close(): void;
}

export interface Impl {
  readonly name: ImplName;
  /** Imports the implementation; rejects when it cannot be loaded (the rows then show the error). */
  load(): Promise<void>;
  /** The compiled child main that serves this implementation's agent over stdin/stdout. */
  readonly agentScript: URL;
  /** Child side: serve the bench agent on this process's stdin/stdout. */
  serveStdio(observer: TurnObserver): Promise<void>;
  /** Connects a client to a spawned agent child over its pipes, then does `initialize` and `session/new`. */
  connectPipe(child: ChildProcessWithoutNullStreams, hooks: ClientHooks): Promise<BenchClient>;
  /** Runs the agent in this process, connects a client to it in memory, then does the same handshake. */
  connectMemory(hooks: ClientHooks): Promise<BenchClient>;
  /** Whether `connectMemory` is available. */
  readonly hasMemory: boolean;
  /**
   * Child side: host the bench agent with this implementation's remote server (Streamable HTTP and WebSocket on
   * 127.0.0.1, one `/acp` endpoint); resolves with the endpoint's `http://` URL.
   */
  serveRemote?(observer: TurnObserver): Promise<string>;
  /** Connects this implementation's remote client (`profile`) to `url`, then does `initialize` and `session/new`. */
  connectRemote?(url: string, profile: RemoteProfile, hooks: ClientHooks): Promise<BenchClient>;
  /** How the in-memory connection is made (printed with the results). */
  readonly memoryNote: string;
}
