/**
 * The reference agent's per-session state, and how it is rebuilt from a session's stored history on
 * `session/load` and `session/resume`: the agent records its own `data` records (never sent to the client) for the
 * model's conversation and the token count, and replays them here in order. (The mode and the `model` option are
 * the toolkit's session settings, persisted and restored by it.)
 */
import type { SessionRecord } from "@acpkit/sdk/agent-toolkit";
import type { ChatMessage } from "./model/chat-types.js";

export interface RefState {
  /** The model's conversation (without the system prompt). */
  messages: ChatMessage[];
  /** Tokens used so far (reported by the model, or estimated by the scripted agent). */
  tokensUsed: number;
}

/** The agent's private history records (`{ kind: "data", data: RefData }`). */
export type RefData = { ref: "chat"; message: ChatMessage } | { ref: "tokens"; used: number };

/** Wraps agent data as a history record. */
export function dataRecord(data: RefData): SessionRecord {
  return { kind: "data", data };
}

/** A fresh state, or the state `history` leads to. */
export function restoreState(history: readonly SessionRecord[]): RefState {
  const state: RefState = { messages: [], tokensUsed: 0 };
  for (const record of history) {
    if (record.kind !== "data") continue;
    const data = record.data as Partial<RefData> | null;
    if (data === null || typeof data !== "object") continue;
    if (data.ref === "chat" && data.message !== undefined) state.messages.push(data.message);
    else if (data.ref === "tokens" && typeof data.used === "number") state.tokensUsed = data.used;
  }
  return state;
}
