/**
 * One live session of the toolkit: its setup (cwd, additional roots), the author's state, its permission memory,
 * its prompt-turn slot, and `send`, which both notifies the client (`session/update`) and records the update in the
 * store so `session/load` can replay exactly what the client saw.
 * @see https://agentclientprotocol.com/protocol/session-setup
 */
import type { SendRequestOptions } from "../../jsonrpc/index.js";
import type { Logger } from "../../jsonrpc/logger.js";
import type { ClientCapabilities, SessionInfo, SessionUpdate } from "../../protocol/index.js";
import type { SessionCommands } from "./commands.js";
import type { SessionSettings } from "./config-options.js";
import type { McpSessionTools } from "./mcp-connector.js";
import { PermissionMemory } from "./permissions.js";
import type { ReplayReport } from "./replay.js";
import { TurnSlot } from "./prompt-turn.js";
import type { SessionRecord, SessionStore } from "./session-store.js";

/** What the toolkit needs of the connection to the client; an `AgentSideConnection` is one. */
export interface ClientPort {
  notify(method: string, params?: unknown): Promise<void>;
  request<R = unknown>(method: string, params?: unknown, options?: SendRequestOptions): Promise<R>;
  /** Aborted when the connection closes: every turn is then cancelled. */
  readonly signal?: AbortSignal;
}

/** How a session came to be live on this connection (`fork`: a new session copied from another, `session/fork`). */
export type SessionOrigin = "new" | "load" | "resume" | "fork";

/** What the manager passes to build a session. */
export interface SessionInit {
  sessionId: string;
  cwd: string;
  additionalDirectories: string[];
  title?: string | null;
  client: ClientPort;
  store: SessionStore | undefined;
  logger: Logger;
  /** The client's capabilities from `initialize` (read when needed). */
  clientCapabilities?: () => ClientCapabilities | undefined;
}

export class ToolkitSession<S = unknown> {
  readonly sessionId: string;
  /** Absolute; the base for relative paths. */
  readonly cwd: string;
  /** Absolute additional workspace roots; the effective root set is `[cwd, ...additionalDirectories]`. */
  readonly additionalDirectories: string[];
  /** The agent author's per-session state (from the toolkit's `createState`). */
  state!: S;
  /** Remembered "always" permission answers. */
  readonly permissions = new PermissionMemory();
  /** The prompt turns: one runs at a time. */
  readonly turns = new TurnSlot();
  readonly client: ClientPort;
  readonly logger: Logger;
  /** Modes and config options (when the agent declared any). */
  settings: SessionSettings<any> | undefined;
  /** Slash commands (when the agent declared any). */
  commands: SessionCommands<any> | undefined;
  /** The session's MCP servers (when the agent was given an MCP connector). */
  mcp: McpSessionTools | undefined;
  /** What the `session/load` that made this session live did beyond replaying each record as is (split, skipped). */
  replay: ReplayReport | undefined;
  #title: string | null;
  readonly #capabilities: (() => ClientCapabilities | undefined) | undefined;
  readonly #cleanups: Array<() => unknown> = [];
  #disposed: Promise<void> | undefined;
  readonly #store: SessionStore | undefined;
  readonly #writes = new Set<Promise<void>>();

  constructor(init: SessionInit) {
    this.sessionId = init.sessionId;
    this.cwd = init.cwd;
    this.additionalDirectories = [...init.additionalDirectories];
    this.#title = init.title ?? null;
    this.client = init.client;
    this.#store = init.store;
    this.logger = init.logger;
    this.#capabilities = init.clientCapabilities;
  }

  /** The client's capabilities from `initialize` (`{}` if unknown): check them before calling gated methods. */
  get clientCapabilities(): ClientCapabilities {
    return this.#capabilities?.() ?? (this.client as { clientCapabilities?: ClientCapabilities }).clientCapabilities ?? {};
  }

  /** Registers cleanup to run once when the session closes, is deleted, or the connection ends (last added runs first). */
  onDispose(cleanup: () => unknown): void {
    if (this.#disposed !== undefined) void Promise.resolve().then(cleanup).catch(() => {});
    else this.#cleanups.push(cleanup);
  }

  /** Runs the cleanups (once; later calls get the same promise). Failures are logged, never thrown. */
  dispose(): Promise<void> {
    return (this.#disposed ??= (async () => {
      for (const cleanup of this.#cleanups.splice(0).reverse()) {
        try {
          await cleanup();
        } catch (error) {
          this.logger.error("a session cleanup failed", { sessionId: this.sessionId, detail: error instanceof Error ? error.message : String(error) });
        }
      }
    })());
  }

  get title(): string | null {
    return this.#title;
  }

  /** The effective root set: `[cwd, ...additionalDirectories]`. */
  get roots(): string[] {
    return [this.cwd, ...this.additionalDirectories];
  }

  /**
   * Records a `session/update` for replay, then sends it: write-ahead, so an update the client saw is always in the
   * history, even if the agent is killed right after (the store's append resolves once the record is written; the
   * file store also fsyncs each batch). Order is kept: appends resolve in order. Prefer a turn's `send` during a
   * turn: it stops sending once the turn was answered.
   */
  send(update: SessionUpdate): Promise<void> {
    const written = this.record({ kind: "update", update });
    return written.then(() => this.client.notify("session/update", { sessionId: this.sessionId, update }));
  }

  /**
   * Records without sending: agent-private `data` records, or updates the client already has (its own prompt).
   * Resolves once written (never rejects: a failed write is logged); `flush()` waits for every pending write.
   */
  record(...records: SessionRecord[]): Promise<void> {
    if (this.#store === undefined || records.length === 0) return Promise.resolve();
    const write = this.#store.append(this.sessionId, records).catch((error: unknown) => {
      this.logger.error("could not record session history", { sessionId: this.sessionId, detail: error instanceof Error ? error.message : String(error) });
    });
    this.#writes.add(write);
    void write.finally(() => this.#writes.delete(write));
    return write;
  }

  /** Sets (or clears, with null) the title: sends `session_info_update` and stores it for `session/list`. */
  async setTitle(title: string | null): Promise<void> {
    this.#title = title;
    const updatedAt = new Date().toISOString();
    await Promise.all([this.send({ sessionUpdate: "session_info_update", title, updatedAt }), this.touch({ title, updatedAt })]);
  }

  /** Updates the stored metadata (`updatedAt` defaults to now). */
  async touch(patch: { title?: string | null; updatedAt?: string } = {}): Promise<void> {
    if (this.#store === undefined) return;
    try {
      await this.#store.update(this.sessionId, { updatedAt: new Date().toISOString(), ...patch });
    } catch (error) {
      this.logger.error("could not update session metadata", { sessionId: this.sessionId, detail: error instanceof Error ? error.message : String(error) });
    }
  }

  /** Resolves once every record handed to the store so far is durable (or failed and was logged). */
  async flush(): Promise<void> {
    while (this.#writes.size > 0) await Promise.all([...this.#writes]);
  }

  /**
   * Resolves once every record handed to the store before this call is durable (or failed and was logged); unlike
   * `flush()` it does not wait for records written meanwhile, so it ends even while a turn keeps streaming.
   */
  async recorded(): Promise<void> {
    await Promise.all([...this.#writes]);
  }

  /** The session as `session/list` reports it. */
  info(): SessionInfo {
    const info: SessionInfo = { sessionId: this.sessionId, cwd: this.cwd, title: this.#title };
    if (this.additionalDirectories.length > 0) info.additionalDirectories = [...this.additionalDirectories];
    return info;
  }
}
