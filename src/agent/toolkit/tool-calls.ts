/**
 * Tool calls: a tracker that reports each call's lifecycle to the client as `tool_call` then `tool_call_update`
 * notifications, and helpers that build tool call content (text, diff, terminal).
 * The spec: a call starts with `tool_call` (status `pending` unless given), moves through `in_progress` to
 * `completed` or `failed`; an update carries only the changed fields, and `content` / `locations` replace the
 * whole collection.
 * @see https://agentclientprotocol.com/protocol/tool-calls
 */
import type { Logger } from "../../jsonrpc/logger.js";
import { silentLogger } from "../../jsonrpc/logger.js";
import type {
  SessionUpdate,
  ToolCall,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
  ToolCallUpdate,
  ToolKind,
} from "../../protocol/index.js";

/** Where session updates go (a prompt turn's guarded sender, or a session's). */
export type UpdateSink = (update: SessionUpdate) => Promise<void>;

/** What starts a tool call. `toolCallId` defaults to a fresh UUID, `status` to `pending`. */
export type ToolCallInit = Omit<ToolCall, "toolCallId"> & { toolCallId?: string };

/** The fields an update may change (the status is changed by the lifecycle methods). */
export type ToolCallPatch = Omit<ToolCallUpdate, "toolCallId" | "status">;

/** Text content for a tool call. */
export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/**
 * Diff content: a file's change from `oldText` (null or undefined for a new file) to `newText`. `path` must be
 * absolute.
 */
export function diffContent(path: string, oldText: string | null | undefined, newText: string): ToolCallContent {
  return oldText === undefined || oldText === null
    ? { type: "diff", path, newText }
    : { type: "diff", path, oldText, newText };
}

/** Embeds a client terminal (from `terminal/create`) in a tool call: the client shows its live output. */
export function terminalContent(terminalId: string): ToolCallContent {
  return { type: "terminal", terminalId };
}

const NEXT: Record<ToolCallStatus, readonly ToolCallStatus[]> = {
  pending: ["pending", "in_progress", "completed", "failed"],
  in_progress: ["in_progress", "completed", "failed"],
  completed: [],
  failed: [],
};

/** One tool call. Every method sends one update and returns its promise; an illegal transition throws. */
export class ToolCallHandle {
  readonly id: string;
  /** Settles when the opening `tool_call` notification was handed to the transport. */
  readonly started: Promise<void>;
  #status: ToolCallStatus;
  #state: ToolCall;
  readonly #sink: UpdateSink;

  constructor(init: ToolCallInit, sink: UpdateSink) {
    this.id = init.toolCallId ?? globalThis.crypto.randomUUID();
    this.#status = init.status ?? "pending";
    this.#state = { ...init, toolCallId: this.id, status: this.#status };
    this.#sink = sink;
    this.started = sink({ sessionUpdate: "tool_call", ...this.#state });
  }

  get status(): ToolCallStatus {
    return this.#status;
  }

  get kind(): ToolKind | undefined {
    return this.#state.kind;
  }

  /** Whether the call reached `completed` or `failed`. */
  get finished(): boolean {
    return NEXT[this.#status].length === 0;
  }

  /** The call as it stands, as a `ToolCallUpdate` (what `session/request_permission` needs). */
  snapshot(): ToolCallUpdate {
    return { ...this.#state };
  }

  /** Moves to `in_progress`. */
  start(patch: ToolCallPatch = {}): Promise<void> {
    return this.#send("in_progress", patch);
  }

  /** Changes fields without changing the status. */
  update(patch: ToolCallPatch): Promise<void> {
    return this.#send(this.#status, patch);
  }

  /** Appends content items (the client gets the whole list, as the spec's replace semantics require). */
  addContent(...items: ToolCallContent[]): Promise<void> {
    return this.update({ content: [...(this.#state.content ?? []), ...items] });
  }

  /** Moves to `completed`, typically with `content` and `rawOutput`. */
  complete(patch: ToolCallPatch = {}): Promise<void> {
    return this.#send("completed", patch);
  }

  /** Moves to `failed`; `error` (if given) becomes text content appended to the call's content. */
  fail(error?: unknown, patch: ToolCallPatch = {}): Promise<void> {
    if (error === undefined) return this.#send("failed", patch);
    const text = error instanceof Error ? error.message : String(error);
    return this.#send("failed", { content: [...(this.#state.content ?? []), textContent(text)], ...patch });
  }

  #send(status: ToolCallStatus, patch: ToolCallPatch): Promise<void> {
    if (!NEXT[this.#status].includes(status)) {
      throw new Error(`tool call ${this.id} cannot go from ${this.#status} to ${status}`);
    }
    const changed = Object.fromEntries(
      Object.entries(patch).filter(([, value]) => value !== undefined),
    ) as ToolCallPatch;
    const update: ToolCallUpdate = { toolCallId: this.id, ...changed };
    if (status !== this.#status) update.status = status;
    this.#status = status;
    this.#state = { ...this.#state, ...(changed as Partial<ToolCall>), status };
    return this.#sink({ sessionUpdate: "tool_call_update", ...update });
  }
}

/** The tool calls of a session or turn, by id. */
export class ToolCallTracker {
  readonly #calls = new Map<string, ToolCallHandle>();
  readonly #sink: UpdateSink;
  readonly #logger: Logger;

  constructor(sink: UpdateSink, logger: Logger = silentLogger) {
    this.#sink = sink;
    this.#logger = logger;
  }

  /** Starts a call: sends `tool_call` now. */
  create(init: ToolCallInit): ToolCallHandle {
    if (init.toolCallId !== undefined && this.#calls.has(init.toolCallId))
      throw new Error(`tool call id ${init.toolCallId} is already in use`);
    const handle = new ToolCallHandle(init, this.#sink);
    handle.started.catch((error: unknown) =>
      this.#logger.warn("could not send a tool_call", { toolCallId: handle.id, detail: String(error) }),
    );
    this.#calls.set(handle.id, handle);
    return handle;
  }

  get(toolCallId: string): ToolCallHandle | undefined {
    return this.#calls.get(toolCallId);
  }

  /** Calls not yet `completed` or `failed`. */
  unfinished(): ToolCallHandle[] {
    return [...this.#calls.values()].filter((call) => !call.finished);
  }
}

export type { ToolCallLocation };
