/** Calls a tool of one of the session's MCP servers inside a tool call the client sees. */
import { isAbortError, textContent } from "../../../agent/toolkit/index.js";
import type { TurnContext } from "../context.js";
import { clip, errorText, type ToolResult } from "./result.js";

export async function mcpTool(ctx: TurnContext, server: string, tool: string, input: Record<string, unknown>): Promise<ToolResult> {
  const call = ctx.turn.toolCall({ title: `${server}: ${tool}`, kind: "other", status: "in_progress", rawInput: input });
  try {
    const result = await ctx.mcp.call(server, tool, input, ctx.turn.signal);
    if (result.isError) await call.fail(result.text);
    else await call.complete({ content: [textContent(clip(result.text))], rawOutput: { text: result.text } });
    return { ok: !result.isError, output: result.text };
  } catch (error) {
    if (isAbortError(error) || ctx.turn.signal.aborted) throw error;
    await call.fail(errorText(error));
    return { ok: false, output: `could not call ${server}/${tool}: ${errorText(error)}` };
  }
}
