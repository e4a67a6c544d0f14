/** Every slash command of the reference agent, `/help`, and dispatch. */
import type { TurnResult } from "../../../agent/toolkit/index.js";
import type { TurnContext } from "../context.js";
import { demoCommands } from "./demo.js";
import { fileCommands } from "./files.js";
import { mcpCommands } from "./mcp.js";
import type { SlashCommand } from "./registry.js";
import { runCommand } from "./run.js";
import { sessionCommands } from "./session.js";

const help: SlashCommand = {
  name: "help",
  description: "List the commands",
  async run(ctx) {
    const lines = COMMANDS.map((command) => `- /${command.name}${command.hint ? ` ${command.hint}` : ""}: ${command.description}`);
    await ctx.turn.say(`Commands (paths may be relative to ${ctx.turn.session.cwd}):\n${lines.join("\n")}`);
  },
};

/** The commands, in the order `/help` and `available_commands_update` list them. */
export const COMMANDS: readonly SlashCommand[] = [...fileCommands, runCommand, ...demoCommands, ...sessionCommands, ...mcpCommands, help];

/** Runs `/name args`; an unknown name gets a short answer pointing at `/help`. */
export async function runSlashCommand(ctx: TurnContext, name: string, args: string): Promise<TurnResult> {
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    await ctx.turn.say(`Unknown command /${name}. Type /help to see the commands.`);
    return "end_turn";
  }
  return command.run(ctx, args);
}
