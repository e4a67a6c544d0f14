/**
 * `Transcript`: the client-side model of one session, folded from its `session/update` notifications and the
 * client's own prompt turns. Pure and synchronous: no I/O, no timers; a terminal UI and a web UI render the same data.
 *
 * See protocol docs: [Prompt Turn](https://agentclientprotocol.com/protocol/prompt-turn),
 * [Tool Calls](https://agentclientprotocol.com/protocol/tool-calls), [Agent
 * Plan](https://agentclientprotocol.com/protocol/agent-plan), [Session
 * Modes](https://agentclientprotocol.com/protocol/session-modes), [Slash
 * Commands](https://agentclientprotocol.com/protocol/slash-commands)
 */
import type {
  ContentBlock,
  ContentChunk,
  SessionConfigOption,
  SessionModeState,
  SessionUpdate,
  StopReason,
} from "../../protocol/index.js";
import { appendContent, foldCompaction, isFinished, mergeToolCall, patchInfo, textOf, toUsage } from "./fold-update.js";
import type {
  CompactionEntry,
  MessageEntry,
  MessageRole,
  SessionInfo,
  SessionState,
  StateField,
  ToolCallEntry,
  ToolCallState,
  TranscriptChange,
  TranscriptEntry,
  TranscriptListener,
  Turn,
  UnknownUpdate,
  Usage,
} from "./transcript-types.js";

/** Options of `Transcript`. */
export interface TranscriptOptions {
  /** The session this transcript belongs to (informational). */
  sessionId?: string;
  /** Hears errors thrown by change listeners; they are otherwise swallowed so folding never stops. */
  onListenerError?: (error: unknown, change: TranscriptChange) => void;
}

/** Options of `Transcript.beginTurn`. */
export interface BeginTurnOptions {
  /** Add the prompt as a user message entry (default true). Turn it off for agents that echo `user_message_chunk`. */
  echoPrompt?: boolean;
}

/** What `setup` reads from a `session/new`, `session/load` or `session/resume` response. */
export interface SessionSetup {
  modes?: SessionModeState | null;
  configOptions?: SessionConfigOption[] | null;
}

const ROLE_OF: Readonly<Record<string, MessageRole>> = {
  user_message_chunk: "user",
  agent_message_chunk: "agent",
  agent_thought_chunk: "thought",
};

/**
 * The model of one session.
 *
 * Contracts:
 * - `apply` folds one update; it never throws on well-formed input and keeps update kinds it does not know in
 *   `unknown` (with their turn) instead of dropping them.
 * - Message chunks: a chunk with a `messageId` goes to the message of that role and id, wherever it is; a chunk
 *   without one goes to the latest entry when that is a message of the same role (with or without an id), else it
 *   starts a new message. A chunk with a new `messageId` always starts a new message.
 * - Tool calls: one entry per `toolCallId`, patched in place (see `mergeToolCall`); a `tool_call_update` for an
 *   unknown id creates the entry, a repeated `tool_call` merges into it.
 * - Plan: replaced whole by every `plan` update (`plan`), plus one snapshot entry per turn, updated in place.
 * - Mode, config options, commands, usage, info: the latest wins (`config_option_update` replaces the whole list;
 *   `session_info_update` patches, `null` clears).
 * - Turns: `beginTurn` / `endTurn` / `failTurn` bracket a `session/prompt`. Updates arriving after the turn ended
 *   (agents streaming past their response) are folded into that same, ended turn: new entries get `late: true` and
 *   the turn counts them in `lateUpdates`. No trailing bucket: the last turn is where they belong.
 * - Cancel: `requestCancel` records the request and marks the turn's unfinished tool calls `cancelled` (the spec's
 *   SHOULD); the turn then ends with `outcome: "cancelled"` whatever the agent answers, and keeps the agent's
 *   `stopReason` (e.g. `end_turn`) or `error` beside it.
 * - Changes: listeners (`onChange`) get one `TranscriptChange` per change, synchronously; changed entries and turns
 *   are new objects (same id), and `version` increases on every change.
 */
export class Transcript {
  readonly sessionId: string | undefined;
  readonly #options: TranscriptOptions;
  readonly #entries: TranscriptEntry[] = [];
  readonly #turns: Turn[] = [];
  readonly #indexById = new Map<string, number>();
  readonly #toolCalls = new Map<string, number>();
  readonly #messages = new Map<string, number>();
  readonly #plans = new Map<number | undefined, number>();
  /** Compaction entries by compactionId. */
  readonly #compactions = new Map<string, number>();
  readonly #unknown: UnknownUpdate[] = [];
  readonly #listeners = new Set<TranscriptListener>();
  #state: SessionState = {
    plan: undefined,
    modes: undefined,
    currentModeId: undefined,
    configOptions: undefined,
    availableCommands: undefined,
    usage: undefined,
    info: {},
  };
  #nextId = 1;
  #version = 0;

  constructor(options: TranscriptOptions = {}) {
    this.sessionId = options.sessionId;
    this.#options = options;
  }

  /** Every entry, in arrival order (a live, read-only view). */
  get entries(): readonly TranscriptEntry[] {
    return this.#entries;
  }
  /** Every turn, in order (a live, read-only view). */
  get turns(): readonly Turn[] {
    return this.#turns;
  }
  /** The running turn, if any. */
  get currentTurn(): Turn | undefined {
    const last = this.#turns[this.#turns.length - 1];
    return last?.state === "running" ? last : undefined;
  }
  /** Increases on every change: a cheap snapshot key for UIs (`useSyncExternalStore` and the like). */
  get version(): number {
    return this.#version;
  }
  /** Session-level state: plan, modes, config options, commands, usage, info (a new object after each change). */
  get state(): SessionState {
    return this.#state;
  }
  get plan(): SessionState["plan"] {
    return this.#state.plan;
  }
  get currentModeId(): string | undefined {
    return this.#state.currentModeId;
  }
  get configOptions(): SessionState["configOptions"] {
    return this.#state.configOptions;
  }
  get availableCommands(): SessionState["availableCommands"] {
    return this.#state.availableCommands;
  }
  get usage(): Usage | undefined {
    return this.#state.usage;
  }
  get info(): SessionInfo {
    return this.#state.info;
  }
  /** Updates of kinds this version does not know, as received. */
  get unknown(): readonly UnknownUpdate[] {
    return this.#unknown;
  }

  /** The entry with this id. */
  entry(id: string): TranscriptEntry | undefined {
    const index = this.#indexById.get(id);
    return index === undefined ? undefined : this.#entries[index];
  }

  /** The folded state of a tool call. */
  toolCall(toolCallId: string): ToolCallState | undefined {
    const index = this.#toolCalls.get(toolCallId);
    return index === undefined ? undefined : (this.#entries[index] as ToolCallEntry).toolCall;
  }

  /** Calls `listener` on every change until the returned function is called. */
  onChange(listener: TranscriptListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Seeds modes and config options from a `session/new` / `session/load` / `session/resume` response. */
  setup(response: SessionSetup): void {
    if (response.modes != null) {
      this.#setState({ modes: response.modes, currentModeId: response.modes.currentModeId }, "modes");
    }
    if (response.configOptions != null) this.#setState({ configOptions: response.configOptions }, "configOptions");
  }

  /** Folds one `session/update`'s `update`. See the class contract. */
  apply(update: SessionUpdate | { sessionUpdate: string; [key: string]: unknown }): void {
    const known = update as SessionUpdate;
    switch (known.sessionUpdate) {
      case "user_message_chunk":
      case "agent_message_chunk":
      case "agent_thought_chunk":
        return this.#chunk(ROLE_OF[known.sessionUpdate]!, known);
      case "tool_call":
      case "tool_call_update":
        return this.#toolCall(known);
      case "plan":
        return this.#plan(known.entries);
      case "current_mode_update": {
        const modes =
          this.#state.modes === undefined ? undefined : { ...this.#state.modes, currentModeId: known.currentModeId };
        return this.#setState({ currentModeId: known.currentModeId, modes }, "modes");
      }
      case "config_option_update":
        return this.#setState({ configOptions: known.configOptions }, "configOptions");
      case "available_commands_update":
        return this.#setState({ availableCommands: known.availableCommands }, "availableCommands");
      case "usage_update":
        return this.#setState({ usage: toUsage(known) }, "usage");
      case "session_info_update":
        return this.#setState({ info: patchInfo(this.#state.info, known) }, "info");
      case "notice":
        return this.#add({
          kind: "notice",
          severity: known.severity,
          title: known.title,
          ...(known.description != null ? { description: known.description } : {}),
          ...(known._meta != null ? { _meta: known._meta } : {}),
        });
      case "compaction_update":
      case "compaction_summary_chunk":
        return this.#compaction(known);
      default:
        this.#unknown.push({
          turn: this.#turns.length === 0 ? undefined : this.#turns.length - 1,
          update: update as UnknownUpdate["update"],
        });
        return this.#emit({ type: "state_changed", field: "unknown" });
    }
  }

  /**
   * Starts a turn for a `session/prompt` about to be sent. Throws when a turn is still running (end it first with
   * `endTurn` or `failTurn`).
   */
  beginTurn(prompt: readonly ContentBlock[], options: BeginTurnOptions = {}): Turn {
    if (this.currentTurn !== undefined)
      throw new Error("A prompt turn is still running in this session: end it before beginning another.");
    const turn: Turn = { index: this.#turns.length, prompt, state: "running", cancelRequested: false, lateUpdates: 0 };
    this.#turns.push(turn);
    this.#emit({ type: "turn_started", turn });
    if (options.echoPrompt !== false && prompt.length > 0) {
      this.#add({ kind: "message", role: "user", messageId: undefined, content: prompt, text: textOf(prompt) });
    }
    return turn;
  }

  /**
   * Records that the client sent `session/cancel` for the running turn and marks its unfinished tool calls
   * `cancelled`. Returns false (and does nothing) when no turn is running.
   */
  requestCancel(): boolean {
    const turn = this.currentTurn;
    if (turn === undefined) return false;
    if (!turn.cancelRequested) this.#replaceTurn({ ...turn, cancelRequested: true }, "turn_updated");
    this.#entries.forEach((entry, index) => {
      if (
        entry.kind !== "tool_call" ||
        entry.turn !== turn.index ||
        entry.toolCall.cancelled ||
        isFinished(entry.toolCall)
      )
        return;
      this.#replace(index, { ...entry, toolCall: { ...entry.toolCall, cancelled: true } });
    });
    return true;
  }

  /** Ends the running turn with the agent's stop reason (see the class contract on cancel). No-op without one. */
  endTurn(stopReason: StopReason): Turn | undefined {
    const turn = this.currentTurn;
    if (turn === undefined) return undefined;
    return this.#replaceTurn(
      { ...turn, state: "ended", stopReason, outcome: turn.cancelRequested ? "cancelled" : stopReason },
      "turn_ended",
    );
  }

  /** Ends the running turn because its `session/prompt` failed. No-op without one. */
  failTurn(error: unknown): Turn | undefined {
    const turn = this.currentTurn;
    if (turn === undefined) return undefined;
    return this.#replaceTurn(
      { ...turn, state: "ended", error, outcome: turn.cancelRequested ? "cancelled" : "error" },
      "turn_ended",
    );
  }

  #chunk(role: MessageRole, chunk: ContentChunk): void {
    const messageId = chunk.messageId ?? undefined;
    let index: number | undefined;
    if (messageId !== undefined) index = this.#messages.get(`${role}:${messageId}`);
    else {
      const last = this.#entries[this.#entries.length - 1];
      if (last?.kind === "message" && last.role === role) index = this.#entries.length - 1;
    }
    if (index === undefined) {
      const content = [chunk.content];
      this.#add({ kind: "message", role, messageId, content, text: textOf(content) });
      return;
    }
    const entry = this.#entries[index] as MessageEntry;
    const content = appendContent(entry.content, chunk.content);
    this.#touchLate();
    this.#replace(index, { ...entry, content, text: textOf(content) });
  }

  #toolCall(update: Parameters<typeof mergeToolCall>[1]): void {
    const index = this.#toolCalls.get(update.toolCallId);
    if (index === undefined) {
      this.#add({ kind: "tool_call", toolCall: mergeToolCall(undefined, update) });
      return;
    }
    const entry = this.#entries[index] as ToolCallEntry;
    this.#touchLate();
    this.#replace(index, { ...entry, toolCall: mergeToolCall(entry.toolCall, update) });
  }

  #plan(entries: SessionState["plan"] & object): void {
    this.#setState({ plan: entries }, "plan");
    const turn = this.#turnOfNewEntry();
    const index = this.#plans.get(turn);
    if (index === undefined) {
      this.#add({ kind: "plan", entries });
      return;
    }
    this.#touchLate();
    this.#replace(index, { ...(this.#entries[index] as TranscriptEntry & { kind: "plan" }), entries });
  }

  #compaction(update: Parameters<typeof foldCompaction>[1]): void {
    const index = this.#compactions.get(update.compactionId);
    const entry = index === undefined ? undefined : (this.#entries[index] as CompactionEntry);
    const next = foldCompaction(entry, update);
    if (index === undefined) {
      this.#add(next);
      return;
    }
    this.#touchLate();
    const { id, turn, late } = entry!;
    this.#replace(index, { id, turn, ...(late ? { late } : {}), ...next });
  }

  #turnOfNewEntry(): number | undefined {
    return this.#turns.length === 0 ? undefined : this.#turns.length - 1;
  }

  /** Counts an entry-changing update that arrived after the last turn ended; returns whether it did. */
  #touchLate(): boolean {
    const last = this.#turns[this.#turns.length - 1];
    if (last === undefined || last.state === "running") return false;
    this.#replaceTurn({ ...last, lateUpdates: last.lateUpdates + 1 }, "turn_updated");
    return true;
  }

  #add(fields: DistributiveOmit<TranscriptEntry, "id" | "turn" | "late">): void {
    const late = this.#touchLate();
    const id = `e${this.#nextId++}`;
    const entry = { id, turn: this.#turnOfNewEntry(), ...(late ? { late } : {}), ...fields } as TranscriptEntry;
    const index = this.#entries.push(entry) - 1;
    this.#indexById.set(id, index);
    if (entry.kind === "tool_call") this.#toolCalls.set(entry.toolCall.toolCallId, index);
    else if (entry.kind === "plan") this.#plans.set(entry.turn, index);
    else if (entry.kind === "compaction") this.#compactions.set(entry.compactionId, index);
    else if (entry.kind === "message" && entry.messageId !== undefined)
      this.#messages.set(`${entry.role}:${entry.messageId}`, index);
    this.#emit({ type: "entry_added", entry, index });
  }

  #replace(index: number, entry: TranscriptEntry): void {
    const previous = this.#entries[index]!;
    this.#entries[index] = entry;
    this.#emit({ type: "entry_updated", entry, index, previous });
  }

  #replaceTurn(turn: Turn, type: "turn_updated" | "turn_ended"): Turn {
    this.#turns[turn.index] = turn;
    this.#emit({ type, turn });
    return turn;
  }

  #setState(patch: Partial<SessionState>, field: StateField): void {
    this.#state = { ...this.#state, ...patch };
    this.#emit({ type: "state_changed", field });
  }

  #emit(change: TranscriptChange): void {
    this.#version++;
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.#options.onListenerError?.(error, change);
      }
    }
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
