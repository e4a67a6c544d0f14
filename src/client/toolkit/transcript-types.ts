/**
 * The data a `Transcript` exposes: entries in arrival order, turns, and the session-level state (plan, mode, config
 * options, commands, usage, info). Everything here is plain data, safe to render from a terminal UI or a web UI.
 *
 * Identity contract: entries and turns are never mutated once handed out; a change replaces the object (same `id`,
 * new identity), so `prev !== next` tells a UI what to re-render. The entry list itself keeps its order; an entry
 * never moves.
 */
import type {
  AvailableCommand,
  CompactionStatus,
  ContentBlock,
  Cost,
  NoticeSeverity,
  PlanEntry,
  SessionConfigOption,
  SessionModeState,
  StopReason,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
  ToolKind,
} from "../../protocol/index.js";

/** Free-form metadata as the schema's `_meta`. */
export type Meta = { [key: string]: unknown };

/** Fields every entry has. */
export interface EntryBase {
  /** Stable, unique within the transcript (`e1`, `e2`, ...): use it as a render key. */
  readonly id: string;
  /** Index of the turn the entry arrived in, or `undefined` outside any turn (before the first, or history replay). */
  readonly turn: number | undefined;
  /** True when it arrived after its turn had ended (an agent streaming past its `session/prompt` response). */
  readonly late?: boolean;
}

/** Which stream a message came from. */
export type MessageRole = "user" | "agent" | "thought";

/** A user message, an agent message or an agent thought: the chunks of one message, folded. */
export interface MessageEntry extends EntryBase {
  readonly kind: "message";
  readonly role: MessageRole;
  /** The agent's `messageId` when the chunks carried one. */
  readonly messageId: string | undefined;
  /** The content, in order; consecutive plain text chunks are joined into one text block. */
  readonly content: readonly ContentBlock[];
  /** All text blocks joined: what a plain-text renderer shows. */
  readonly text: string;
}

/** A tool call's state after folding every `tool_call` / `tool_call_update` for its id. */
export interface ToolCallState {
  readonly toolCallId: string;
  /** `""` when only updates without a title were seen. */
  readonly title: string;
  /** Schema default `other` when never given. */
  readonly kind: ToolKind;
  /** Schema default `pending` when never given. */
  readonly status: ToolCallStatus;
  readonly content: readonly ToolCallContent[];
  readonly locations: readonly ToolCallLocation[];
  readonly rawInput?: unknown;
  readonly rawOutput?: unknown;
  readonly _meta?: Meta;
  /**
   * Set locally (never on the wire) when the client cancelled the turn while this call was not finished
   * (the spec: clients SHOULD mark such calls cancelled). The wire `status` is kept as the agent last reported it.
   */
  readonly cancelled?: boolean;
}

/** One tool call, updated in place (same entry id) by every later update for its id. */
export interface ToolCallEntry extends EntryBase {
  readonly kind: "tool_call";
  readonly toolCall: ToolCallState;
}

/**
 * Where the plan stood in a turn: the first `plan` update of a turn adds this entry, later ones in the same turn
 * replace its `entries` (the plan is always replaced whole). `Transcript.plan` is the latest plan.
 */
export interface PlanSnapshotEntry extends EntryBase {
  readonly kind: "plan";
  readonly entries: readonly PlanEntry[];
}

/**
 * A notice for the user (`notice`): fire-and-forget information, shown where it arrived. Notices are live events,
 * not history: an agent must not rely on one being seen.
 */
export interface NoticeEntry extends EntryBase {
  readonly kind: "notice";
  /** `info`, `warning`, `error`, or a newer severity as received. */
  readonly severity: NoticeSeverity;
  readonly title: string;
  readonly description?: string;
  readonly _meta?: Meta;
}

/**
 * A context compaction (`compaction_update` / `compaction_summary_chunk`), one entry per `compactionId`, placed where
 * its first update arrived and patched in place: `summary`, `error` and `_meta` with patch semantics (absent keeps,
 * `null` or `[]` clears), summary chunks appended in order.
 */
export interface CompactionEntry extends EntryBase {
  readonly kind: "compaction";
  readonly compactionId: string;
  /** `in_progress` (also for one first seen through a summary chunk), `completed`, `failed`, `cancelled`, or newer. */
  readonly status: CompactionStatus;
  readonly summary: readonly ContentBlock[];
  /** The summary's text blocks joined. */
  readonly text: string;
  readonly error?: string;
  readonly _meta?: Meta;
}

/** What a transcript lists, in arrival order. */
export type TranscriptEntry = MessageEntry | ToolCallEntry | PlanSnapshotEntry | NoticeEntry | CompactionEntry;

/** One prompt turn, from `beginTurn` to `endTurn` / `failTurn`. */
export interface Turn {
  /** 0, 1, 2, ... in order. */
  readonly index: number;
  /** What the user sent. */
  readonly prompt: readonly ContentBlock[];
  readonly state: "running" | "ended";
  /** Whether the client asked to cancel (`requestCancel`) while it ran. */
  readonly cancelRequested: boolean;
  /** The agent's stop reason, exactly as answered (an agent may answer `end_turn` to a cancel). */
  readonly stopReason?: StopReason;
  /** The prompt request's failure, when it failed instead. */
  readonly error?: unknown;
  /**
   * How the turn ended, for display: `cancelled` whenever a cancel was requested and the turn then ended (whatever
   * the agent's stop reason), `error` when the request failed, else the stop reason. Undefined while running.
   */
  readonly outcome?: StopReason | "error";
  /** Updates that arrived after the turn ended and were folded into it. */
  readonly lateUpdates: number;
}

/** Session title and activity time (`session_info_update`); `null` in an update clears a field. */
export interface SessionInfo {
  readonly title?: string;
  readonly updatedAt?: string;
  readonly _meta?: Meta;
}

/** Context window and cost (`usage_update`). */
export interface Usage {
  readonly used: number;
  readonly size: number;
  readonly cost?: Cost;
  readonly _meta?: Meta;
}

/** An update of a kind this version does not know, kept as received. */
export interface UnknownUpdate {
  readonly turn: number | undefined;
  readonly update: { readonly sessionUpdate: string; readonly [key: string]: unknown };
}

/** The session-level state besides the entries. */
export interface SessionState {
  readonly plan: readonly PlanEntry[] | undefined;
  readonly modes: SessionModeState | undefined;
  readonly currentModeId: string | undefined;
  readonly configOptions: readonly SessionConfigOption[] | undefined;
  readonly availableCommands: readonly AvailableCommand[] | undefined;
  readonly usage: Usage | undefined;
  readonly info: SessionInfo;
}

/** Which part of the session-level state changed. */
export type StateField = "plan" | "modes" | "configOptions" | "availableCommands" | "usage" | "info" | "unknown";

/** What one change did; listeners get one per change, synchronously, after the transcript is consistent. */
export type TranscriptChange =
  | { readonly type: "entry_added"; readonly entry: TranscriptEntry; readonly index: number }
  | {
      readonly type: "entry_updated";
      readonly entry: TranscriptEntry;
      readonly index: number;
      readonly previous: TranscriptEntry;
    }
  | { readonly type: "turn_started"; readonly turn: Turn }
  | { readonly type: "turn_updated"; readonly turn: Turn }
  | { readonly type: "turn_ended"; readonly turn: Turn }
  | { readonly type: "state_changed"; readonly field: StateField };

/** A change listener. */
export type TranscriptListener = (change: TranscriptChange) => void;
