/** Every slash command of the reference agent, and `/help`, as toolkit commands. */
import type { SlashCommand } from "@acpkit/sdk/agent-toolkit";
import { turnContext, type AgentSettings } from "../context.js";
import type { RefState } from "../state.js";
import { demoCommands } from "./demo.js";
import { fileCommands } from "./files.js";
import { mcpCommands } from "./mcp.js";
import type { RefCommand } from "./registry.js";
import { runCommand } from "./run.js";
import { sessionCommands } from "./session.js";

const help: RefCommand = {
  name: "help",
  description: "List the commands",
  async run(ctx) {
    const lines = COMMANDS.map(
      (command) => `- /${command.name}${command.input ? ` ${command.input.hint}` : ""}: ${command.description}`,
    );
    await ctx.turn.say(`Commands (paths may be relative to ${ctx.turn.session.cwd}):\n${lines.join("\n")}`);
  },
};

/** The commands, in the order `/help` and `available_commands_update` list them. */
export const COMMANDS: readonly RefCommand[] = [
  ...fileCommands,
  runCommand,
  ...demoCommands,
  ...sessionCommands,
  ...mcpCommands,
  help,
];

/** The commands for `toolkitAgent({ commands })`, each run with the turn's context. */
export function slashCommands(settings: AgentSettings): SlashCommand<RefState>[] {
  return COMMANDS.map((command) => ({
    ...command,
    run: (turn, args) => command.run(turnContext(turn, settings), args),
  }));
}
