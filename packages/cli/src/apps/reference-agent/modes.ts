/**
 * The reference agent's session modes: `ask` (asks permission before any change), `code` (changes without asking)
 * and `architect` (reads and plans, refuses every change). Declared to the toolkit (`toolkitAgent({ modes })`),
 * which answers `session/set_mode`, puts `modes` in session responses and persists the choice. The mode decides
 * what a change (write, edit, command) needs; see `changePolicy`.
 * @see https://agentclientprotocol.com/protocol/session-modes
 */
import type { ModeDeclaration } from "@acpkit/sdk/agent-toolkit";

export type ModeId = "ask" | "code" | "architect";

/** The modes, in the order clients show them. */
export const MODES: readonly (ModeDeclaration & { id: ModeId })[] = [
  { id: "ask", name: "Ask", description: "Asks permission before any change: writes, edits and commands." },
  { id: "code", name: "Code", description: "Makes changes without asking." },
  { id: "architect", name: "Architect", description: "Reads and plans; refuses to change anything." },
];

export const DEFAULT_MODE: ModeId = "ask";

/** What a change needs in a mode: the user's permission, nothing, or it is refused. */
export type ChangePolicy = "ask" | "allow" | "refuse";

export function changePolicy(mode: string): ChangePolicy {
  return mode === "code" ? "allow" : mode === "architect" ? "refuse" : "ask";
}
