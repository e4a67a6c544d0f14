/**
 * The reference agent's per-session state, and how it is rebuilt from a session's stored history on
 * `session/load` and `session/resume`: the agent records its own `data` records (never sent to the client) for the
 * mode, the model choice, the model's conversation and the token count, and replays them here in order.
 */
import type { SessionRecord } from "../../agent/toolkit/index.js";
import type { McpServer } from "../../protocol/index.js";
import { DEFAULT_MODE, isModeId, type ModeId } from "./modes.js";
import type { ChatMessage } from "./model/chat-types.js";

export interface RefState {
  mode: ModeId;
  /** The `model` config option's value. */
  model: string;
  /** The MCP servers of the last `session/new`, `load` or `resume`. */
  mcpServers: McpServer[];
  /** The model's conversation (without the system prompt). */
  messages: ChatMessage[];
  /** Tokens used so far (reported by the model, or estimated by the scripted agent). */
  tokensUsed: number;
}

/** The agent's private history records (`{ kind: "data", data: RefData }`). */
export type RefData =
  | { ref: "mode"; mode: ModeId }
  | { ref: "model"; model: string }
  | { ref: "chat"; message: ChatMessage }
  | { ref: "tokens"; used: number };

/** Wraps agent data as a history record. */
export function dataRecord(data: RefData): SessionRecord {
  return { kind: "data", data };
}

/** A fresh state, or the state `history` leads to. */
export function restoreState(history: readonly SessionRecord[], defaultModel: string): RefState {
  const state: RefState = { mode: DEFAULT_MODE, model: defaultModel, mcpServers: [], messages: [], tokensUsed: 0 };
  for (const record of history) {
    if (record.kind !== "data") continue;
    const data = record.data as Partial<RefData> | null;
    if (data === null || typeof data !== "object") continue;
    if (data.ref === "mode" && isModeId(data.mode)) state.mode = data.mode;
    else if (data.ref === "model" && typeof data.model === "string") state.model = data.model;
    else if (data.ref === "chat" && data.message !== undefined) state.messages.push(data.message);
    else if (data.ref === "tokens" && typeof data.used === "number") state.tokensUsed = data.used;
  }
  return state;
}
