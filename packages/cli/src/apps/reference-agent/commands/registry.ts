/**
 * The reference agent's slash commands are toolkit `SlashCommand`s (the toolkit advertises them with
 * `available_commands_update` and dispatches `/name ARGS` prompts); each is written against the agent's
 * `TurnContext`, which `slashCommands` builds for it per turn.
 * @see https://agentclientprotocol.com/protocol/slash-commands
 */
import type { SlashCommand, TurnResult } from "@acpkit/sdk/agent-toolkit";
import type { TurnContext } from "../context.js";
import type { RefState } from "../state.js";

/** A toolkit slash command whose `run` gets the agent's context instead of the bare turn. */
export type RefCommand = Omit<SlashCommand<RefState>, "run"> & {
  run(ctx: TurnContext, args: string): Promise<TurnResult>;
};

/** The first word of `args` and the rest. */
export function splitFirst(args: string): [string, string] {
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(args.trim());
  return match === null ? ["", ""] : [match[1]!, match[2] ?? ""];
}
