/**
 * Session modes, declared once: the `modes` state of new/load/resume responses, and the `category: "mode"` select
 * config option that mirrors them. The spec: the current mode MUST be one of `availableModes`; a mode can change at
 * any time (client: `session/set_mode`; agent: `current_mode_update`); an agent that offers both modes and config
 * options SHOULD send a `category: "mode"` option too and keep both in sync.
 * @see https://agentclientprotocol.com/protocol/session-modes
 * @see https://agentclientprotocol.com/protocol/session-config-options#relationship-to-session-modes
 */
import { RequestError } from "../../jsonrpc/index.js";
import type {
  SessionConfigOption,
  SessionConfigSelectOption,
  SessionMode,
  SessionModeState,
} from "../../protocol/index.js";

/** A mode the agent can run in. */
export interface ModeDeclaration {
  id: string;
  name: string;
  description?: string;
}

/** How the mirrored `category: "mode"` select option is labelled. Default: `{ id: "mode", name: "Mode" }`. */
export interface ModeOptionLabel {
  id?: string;
  name?: string;
  description?: string;
}

/** The id of the mirrored mode option when none is given. */
export const MODE_OPTION_ID = "mode";

/** The values of a select option, flattened out of any groups. */
export function selectValues(option: SessionConfigOption): SessionConfigSelectOption[] {
  if (option.type !== "select") return [];
  return option.options.flatMap((entry) => ("group" in entry ? entry.options : [entry]));
}

/** The modes a `category: "mode"` select option stands for (its values, in order). */
export function modesFromOption(option: SessionConfigOption): ModeDeclaration[] {
  return selectValues(option).map((value) => {
    const mode: ModeDeclaration = { id: value.value, name: value.name };
    if (value.description) mode.description = value.description;
    return mode;
  });
}

/** The `modes` field of a session response. */
export function modeState(modes: readonly ModeDeclaration[], currentModeId: string): SessionModeState {
  return {
    currentModeId,
    availableModes: modes.map((mode): SessionMode => {
      const out: SessionMode = { id: mode.id, name: mode.name };
      if (mode.description !== undefined) out.description = mode.description;
      return out;
    }),
  };
}

/** The select option (category `mode`) that mirrors `modes`, its current value `currentModeId`. */
export function modeSelectOption(
  modes: readonly ModeDeclaration[],
  currentModeId: string,
  label: ModeOptionLabel = {},
): SessionConfigOption {
  const option: SessionConfigOption = {
    id: label.id ?? MODE_OPTION_ID,
    name: label.name ?? "Mode",
    category: "mode",
    type: "select",
    currentValue: currentModeId,
    options: modes.map((mode) => {
      const value: SessionConfigSelectOption = { value: mode.id, name: mode.name };
      if (mode.description !== undefined) value.description = mode.description;
      return value;
    }),
  };
  if (label.description !== undefined) option.description = label.description;
  return option;
}

/** Checks a mode id from the client: -32602 naming the valid ids if it is not one of `modes`. */
export function checkModeId(modes: readonly ModeDeclaration[], modeId: string): void {
  if (modes.some((mode) => mode.id === modeId)) return;
  throw RequestError.invalidParams(
    { modeId, availableModes: modes.map((mode) => mode.id) },
    `unknown mode "${modeId}"; this session's modes are: ${modes.map((mode) => mode.id).join(", ") || "(none)"}`,
  );
}

/** Checks declared modes (author errors, thrown at setup): non-empty ids, no duplicates, a known current mode. */
export function validateModes(modes: readonly ModeDeclaration[], currentModeId: string | undefined): void {
  const seen = new Set<string>();
  for (const mode of modes) {
    if (!mode.id) throw new Error("every mode needs a non-empty id");
    if (seen.has(mode.id)) throw new Error(`mode id "${mode.id}" is declared twice`);
    seen.add(mode.id);
  }
  if (currentModeId !== undefined && !seen.has(currentModeId))
    throw new Error(`currentModeId "${currentModeId}" is not one of the declared modes`);
}
