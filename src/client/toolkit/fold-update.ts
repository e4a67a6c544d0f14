/**
 * Pure folding helpers for `Transcript`: tool-call patches, content appending, session info, usage, compactions.
 * Nothing here mutates its inputs; every function returns new objects.
 *
 * See protocol docs: [Tool Calls](https://agentclientprotocol.com/protocol/tool-calls#updating)
 */
import type {
  CompactionSummaryChunk,
  CompactionUpdate,
  ContentBlock,
  ToolCall,
  ToolCallUpdate,
  SessionInfoUpdate,
  UsageUpdate,
} from "../../protocol/index.js";
import type { CompactionEntry, Meta, SessionInfo, ToolCallState, Usage } from "./transcript-types.js";

/**
 * Folds a `tool_call` or `tool_call_update` into the known state of that call (or creates it).
 *
 * Patch semantics, the same for a first `tool_call`, a repeated `tool_call` and a `tool_call_update`:
 * - a field present replaces the known value; `content` and `locations` replace the whole collection;
 * - a field absent keeps the known value;
 * - `null` keeps it too: the schema gives `null` no clearing meaning for tool calls (the reference implementation
 *   reads it as absent), and `title`, `kind`, `status` cannot be empty. To clear content an agent sends `[]`.
 * - unknown fields from newer agents are kept (later ones replace earlier ones).
 * A new call starts as `{ title: "", kind: "other", status: "pending", content: [], locations: [] }` (schema defaults).
 */
export function mergeToolCall(previous: ToolCallState | undefined, update: ToolCall | ToolCallUpdate): ToolCallState {
  const base: ToolCallState = previous ?? {
    toolCallId: update.toolCallId,
    title: "",
    kind: "other",
    status: "pending",
    content: [],
    locations: [],
  };
  const next: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(update)) {
    if (key === "sessionUpdate" || key === "toolCallId" || value === undefined || value === null) continue;
    next[key] = value;
  }
  return next as unknown as ToolCallState;
}

/**
 * Appends one chunk's content block. Consecutive text blocks are joined into one (the first block's annotations and
 * `_meta` kept) unless the new block carries its own annotations or `_meta`; any other block is appended as is.
 */
export function appendContent(content: readonly ContentBlock[], block: ContentBlock): ContentBlock[] {
  const last = content[content.length - 1];
  if (last?.type === "text" && block.type === "text" && block.annotations == null && block._meta == null) {
    return [...content.slice(0, -1), { ...last, text: last.text + block.text }];
  }
  return [...content, block];
}

/** The text of a message's blocks joined (non-text blocks contribute nothing). */
export function textOf(content: readonly ContentBlock[]): string {
  let text = "";
  for (const block of content) if (block.type === "text") text += block.text;
  return text;
}

/**
 * Folds `session_info_update` into the known info: a field present replaces, `null` clears (as the schema says),
 * absent keeps. `_meta` present replaces, `null` clears.
 */
export function patchInfo(previous: SessionInfo, update: SessionInfoUpdate): SessionInfo {
  const next: { title?: string; updatedAt?: string; _meta?: Meta } = { ...previous };
  for (const key of ["title", "updatedAt"] as const) {
    const value = update[key];
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  if (update._meta === null) delete next._meta;
  else if (update._meta !== undefined) next._meta = update._meta;
  return next;
}

/**
 * The usage an `usage_update` reports (each update is complete: `used` and `size` are required; `cost: null` = none).
 */
export function toUsage(update: UsageUpdate): Usage {
  const usage: { used: number; size: number; cost?: Usage["cost"]; _meta?: Meta } = {
    used: update.used,
    size: update.size,
  };
  if (update.cost != null) usage.cost = update.cost;
  if (update._meta != null) usage._meta = update._meta;
  return usage;
}

/** Whether a tool call has finished (`completed` or `failed`). */
export function isFinished(state: ToolCallState): boolean {
  return state.status === "completed" || state.status === "failed";
}

/**
 * A compaction entry's fields after one `compaction_update` (status; `summary`, `error`, `_meta` patched: absent
 * keeps, `null` clears, `summary: []` clears) or `compaction_summary_chunk` (content appended; a first-seen id is
 * `in_progress`).
 */
export function foldCompaction(
  previous: CompactionEntry | undefined,
  update:
    | (CompactionUpdate & { sessionUpdate: "compaction_update" })
    | (CompactionSummaryChunk & { sessionUpdate: "compaction_summary_chunk" }),
): Omit<CompactionEntry, "id" | "turn" | "late"> {
  let summary: readonly ContentBlock[] = previous?.summary ?? [];
  let error = previous?.error;
  let meta = previous?._meta;
  let status = previous?.status ?? "in_progress";
  if (update.sessionUpdate === "compaction_summary_chunk") {
    summary = appendContent(summary, update.content);
  } else {
    status = update.status;
    if (update.summary !== undefined) summary = update.summary ?? [];
    if (update.error !== undefined) error = update.error ?? undefined;
    if (update._meta !== undefined) meta = update._meta ?? undefined;
  }
  return {
    kind: "compaction",
    compactionId: update.compactionId,
    status,
    summary,
    text: textOf(summary),
    ...(error !== undefined ? { error } : {}),
    ...(meta !== undefined ? { _meta: meta } : {}),
  };
}
