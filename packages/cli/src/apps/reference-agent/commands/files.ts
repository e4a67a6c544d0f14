/** `/read PATH`, `/write PATH TEXT`, `/edit PATH [FIND => REPLACE]`, `/grep PATTERN`: the file tools, by hand. */
import { editTool, readTool, writeTool } from "../tools/file-tools.js";
import { grepTool } from "../tools/grep-tool.js";
import { splitFirst, type RefCommand } from "./registry.js";
import type { TurnContext } from "../context.js";

async function usage(ctx: TurnContext, text: string): Promise<void> {
  await ctx.turn.say(`Usage: ${text}`);
}

export const fileCommands: RefCommand[] = [
  {
    name: "read",
    description: "Read a file (through the client when it can) and show it in a tool call",
    input: { hint: "PATH" },
    async run(ctx, args) {
      if (args === "") return usage(ctx, "/read PATH");
      const result = await readTool(ctx, args);
      if (!result.ok) return ctx.turn.say(result.output);
      const lines =
        result.output === "" ? 0 : result.output.split("\n").length - (result.output.endsWith("\n") ? 1 : 0);
      await ctx.turn.say(`Read ${args}: ${lines} line${lines === 1 ? "" : "s"}, ${result.output.length} characters.`);
    },
  },
  {
    name: "write",
    description: "Write TEXT to a file (\\n becomes a newline), shown as a diff; asks first in ask mode",
    input: { hint: "PATH TEXT" },
    async run(ctx, args) {
      const [target, text] = splitFirst(args);
      if (target === "") return usage(ctx, "/write PATH TEXT");
      const result = await writeTool(ctx, target, text.replace(/\\n/g, "\n"));
      await ctx.turn.say(result.ok ? `Done: ${result.output}.` : `Not written: ${result.output}.`);
    },
  },
  {
    name: "edit",
    description: "Edit a file, shown as a diff: replace FIND with REPLACE, or append a line when only PATH is given",
    input: { hint: "PATH [FIND => REPLACE]" },
    async run(ctx, args) {
      const [target, rest] = splitFirst(args);
      if (target === "") return usage(ctx, "/edit PATH [FIND => REPLACE]");
      const arrow = rest.indexOf(" => ");
      const result =
        arrow === -1
          ? await editTool(ctx, target)
          : await editTool(ctx, target, rest.slice(0, arrow), rest.slice(arrow + 4));
      await ctx.turn.say(result.ok ? `Done: ${result.output}.` : `Not edited: ${result.output}.`);
    },
  },
  {
    name: "grep",
    description: "Search the files under the session's directory for a regular expression",
    input: { hint: "PATTERN" },
    async run(ctx, args) {
      if (args === "") return usage(ctx, "/grep PATTERN");
      const result = await grepTool(ctx, args);
      await ctx.turn.say(result.output);
    },
  },
];
