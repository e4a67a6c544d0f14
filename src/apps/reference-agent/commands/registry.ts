/**
 * The reference agent's slash commands: a table (name, description, input hint, handler) from which both
 * dispatch and the `available_commands_update` the client shows are derived. A prompt whose text starts with `/`
 * is a command: `/name ARGS`, ARGS being the rest of the text.
 * @see https://agentclientprotocol.com/protocol/slash-commands
 */
import type { TurnResult } from "../../../agent/toolkit/index.js";
import type { AvailableCommand } from "../../../protocol/index.js";
import type { TurnContext } from "../context.js";

export interface SlashCommand {
  name: string;
  description: string;
  /** Shown by the client as the input's placeholder; absent for commands without arguments. */
  hint?: string;
  run(ctx: TurnContext, args: string): Promise<TurnResult>;
}

/** `/name rest` -> { name, args }; undefined when `text` is not a command. */
export function parseCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (match === null) return undefined;
  return { name: match[1]!.toLowerCase(), args: (match[2] ?? "").trim() };
}

/** The commands as the client sees them. */
export function availableCommands(commands: readonly SlashCommand[]): AvailableCommand[] {
  return commands.map((command) => (command.hint === undefined ? { name: command.name, description: command.description } : { name: command.name, description: command.description, input: { hint: command.hint } }));
}

/** The first word of `args` and the rest. */
export function splitFirst(args: string): [string, string] {
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(args.trim());
  return match === null ? ["", ""] : [match[1]!, match[2] ?? ""];
}
