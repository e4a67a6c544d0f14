/**
 * The reference agent's session modes: `ask` (asks permission before any change), `code` (changes without asking)
 * and `architect` (reads and plans, refuses every change). The mode decides what a change (write, edit, command)
 * needs; see `changePolicy`. Advertised in `session/new`, `load` and `resume` responses as `modes`.
 * @see https://agentclientprotocol.com/protocol/session-modes
 */
import type { SessionMode, SessionModeState } from "../../protocol/index.js";

export type ModeId = "ask" | "code" | "architect";

/** The modes, in the order clients show them. */
export const MODES: readonly (SessionMode & { id: ModeId })[] = [
  { id: "ask", name: "Ask", description: "Asks permission before any change: writes, edits and commands." },
  { id: "code", name: "Code", description: "Makes changes without asking." },
  { id: "architect", name: "Architect", description: "Reads and plans; refuses to change anything." },
];

export const DEFAULT_MODE: ModeId = "ask";

export function isModeId(value: unknown): value is ModeId {
  return MODES.some((mode) => mode.id === value);
}

/** The `modes` field of a session response. */
export function modeState(current: ModeId): SessionModeState {
  return { currentModeId: current, availableModes: MODES.map((mode) => ({ ...mode })) };
}

/** What a change needs in a mode: the user's permission, nothing, or it is refused. */
export type ChangePolicy = "ask" | "allow" | "refuse";

export function changePolicy(mode: ModeId): ChangePolicy {
  return mode === "ask" ? "ask" : mode === "code" ? "allow" : "refuse";
}
