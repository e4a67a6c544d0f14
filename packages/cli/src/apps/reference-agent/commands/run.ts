/** `/run [--timeout MS] CMD`: a command in a client terminal, embedded in the tool call, always released. */
import { runTool } from "../tools/run-tool.js";
import type { RefCommand } from "./registry.js";

export const runCommand: RefCommand = {
  name: "run",
  description: "Run a shell command in a client terminal (with a timeout); asks first in ask mode",
  input: { hint: "[--timeout MS] CMD" },
  async run(ctx, args) {
    let line = args;
    let timeoutMs = ctx.settings.runTimeoutMs;
    const flag = /^--timeout[= ](\d+)\s+([\s\S]+)$/.exec(args);
    if (flag !== null) {
      timeoutMs = Number(flag[1]);
      line = flag[2]!;
    }
    if (line === "") return ctx.turn.say("Usage: /run [--timeout MS] CMD");
    const result = await runTool(ctx, line, timeoutMs);
    await ctx.turn.say(
      result.ok ? `Ran \`${line}\`: ${result.output}` : `\`${line}\` did not succeed: ${result.output}`,
    );
  },
};
