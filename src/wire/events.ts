/**
 * What the rule engine sees: one `WireEvent` per frame of a conversation, classified (request, notification,
 * response, or a frame that is not a message) and tied to the method table, with a response linked to the request it
 * answers. Directions are named by sender: `from: "agent"` is a frame the agent wrote.
 */
import type { Side } from "../acp/flavor.js";
import type { JsonRpcId } from "../jsonrpc/messages.js";
import type { MethodEntry } from "../protocol/index.js";

export type { Side };

/** One frame as it crossed the wire: a parsed JSON value, a line that is not JSON, or a line over the size limit. */
export type WireFrame =
  | { kind: "message"; value: unknown }
  | { kind: "unparsable"; line: string }
  | { kind: "oversized"; bytes: number; head: string };

/** What a frame turned out to be. */
export type WireEventType = "request" | "notification" | "response" | "invalid" | "unparsable" | "oversized";

/** One classified frame. */
export interface WireEvent {
  /** Position in the conversation, from 0, both directions counted. */
  readonly index: number;
  /** Milliseconds since the epoch. */
  readonly time: number;
  /** The side that wrote the frame. */
  readonly from: Side;
  readonly type: WireEventType;
  /** The parsed JSON value (for every type but `unparsable` and `oversized`). */
  readonly value?: unknown;
  /** The text of an `unparsable` line, or the first bytes of an `oversized` one. */
  readonly line?: string;
  /** Size of an `oversized` frame. */
  readonly bytes?: number;
  /** The method of a request or notification; for a response, the method of the request it answers (if known). */
  readonly method?: string;
  /** The JSON-RPC id of a request or response. */
  readonly id?: JsonRpcId;
  /** Params of a request or notification. */
  readonly params?: unknown;
  /** Result of a successful response. */
  readonly result?: unknown;
  /** `error` member of an error response. */
  readonly error?: unknown;
  /** For a response: the request it answers, or undefined when no request with that id is pending. */
  readonly request?: WireEvent;
  /** The method-table row of `method`, when ACP defines it. */
  readonly entry?: MethodEntry;
  /** Why an `invalid` frame is not a JSON-RPC message. */
  readonly reason?: string;
  /** For a response: a request with this id was answered before (a second reply). */
  readonly duplicate?: boolean;
  /** For an error response: it answers a frame of the other side that was not a valid message (id `null` or its id). */
  readonly answersInvalid?: boolean;
}

/** The `sessionId` in a request's or notification's params, if any. */
export function sessionIdOf(event: WireEvent): string | undefined {
  const params = event.type === "response" ? event.request?.params : event.params;
  const id = (params as { sessionId?: unknown } | undefined)?.sessionId;
  return typeof id === "string" ? id : undefined;
}

/** A compact, single-line rendering of a frame for reports (cut after `max` characters). */
export function frameText(event: WireEvent, max = 300): string {
  let text: string;
  if (event.type === "unparsable") text = event.line ?? "";
  else if (event.type === "oversized") text = `${event.line ?? ""}… (${event.bytes} bytes)`;
  else {
    try {
      text = JSON.stringify(event.value) ?? String(event.value);
    } catch {
      text = String(event.value);
    }
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** `session/update` kind of an update notification (`agent_message_chunk`, ...), if it is one. */
export function updateKindOf(event: WireEvent): string | undefined {
  if (event.type !== "notification" || event.method !== "session/update") return undefined;
  const kind = (event.params as { update?: { sessionUpdate?: unknown } } | undefined)?.update?.sessionUpdate;
  return typeof kind === "string" ? kind : undefined;
}

/**
 * Update kinds that carry the content of a prompt turn (and of the history a `session/load` replays): messages,
 * thoughts, tool calls and plans. Other kinds (commands, modes, config options, session info, usage, and kinds
 * this schema does not know) describe the session and may come at any time.
 */
export const TURN_CONTENT_UPDATES: ReadonlySet<string> = new Set([
  "user_message_chunk",
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
  "plan",
]);
