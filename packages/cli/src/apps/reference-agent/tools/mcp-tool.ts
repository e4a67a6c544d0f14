/** Calls a tool of one of the session's MCP servers inside a tool call the client sees (its text result as content). */
import { isAbortError, textContent } from "@acpkit/sdk/agent-toolkit";
import type { TurnContext } from "../context.js";
import { mcpResultText } from "../mcp.js";
import { clip, errorText, type ToolResult } from "./result.js";

export async function mcpTool(
  ctx: TurnContext,
  server: string,
  tool: string,
  input: Record<string, unknown>,
): Promise<ToolResult> {
  const call = ctx.turn.toolCall({
    title: `${server}: ${tool}`,
    kind: "other",
    status: "in_progress",
    rawInput: input,
  });
  try {
    const result = await ctx.mcp.callTool(server, tool, input, { signal: ctx.turn.signal });
    const text = mcpResultText(result);
    if (result.isError === true) await call.fail(text);
    else await call.complete({ content: [textContent(clip(text))], rawOutput: result.structuredContent ?? { text } });
    return { ok: result.isError !== true, output: text };
  } catch (error) {
    if (isAbortError(error) || ctx.turn.signal.aborted) throw error;
    await call.fail(errorText(error));
    return { ok: false, output: `could not call ${server}/${tool}: ${errorText(error)}` };
  }
}
