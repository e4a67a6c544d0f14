/**
 * The tools the model may call, as chat-completions function definitions, and their execution through the same
 * tools the slash commands use (so the client sees the same tool calls, diffs, terminals and permission requests).
 * The session's MCP tools are offered as `mcp__<server>__<tool>`.
 */
import type { TurnContext } from "../context.js";
import { editTool, readTool, writeTool } from "../tools/file-tools.js";
import { grepTool } from "../tools/grep-tool.js";
import { mcpTool } from "../tools/mcp-tool.js";
import { errorText, type ToolResult } from "../tools/result.js";
import { runTool } from "../tools/run-tool.js";
import type { ChatTool } from "./chat-types.js";

const fn = (name: string, description: string, properties: Record<string, unknown>, required: string[]): ChatTool => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties, required } },
});
const str = (description: string) => ({ type: "string", description });

const BUILTIN: ChatTool[] = [
  fn("read_file", "Read a text file. Paths may be relative to the working directory.", { path: str("the file") }, [
    "path",
  ]),
  fn(
    "write_file",
    "Create or replace a text file with the given content.",
    { path: str("the file"), content: str("the whole new content") },
    ["path", "content"],
  ),
  fn(
    "edit_file",
    "Replace the first occurrence of old_text with new_text in a file.",
    { path: str("the file"), old_text: str("text that occurs in the file"), new_text: str("its replacement") },
    ["path", "old_text", "new_text"],
  ),
  fn(
    "run_command",
    "Run a shell command in the working directory and return its output.",
    { command: str("the command line") },
    ["command"],
  ),
  fn(
    "grep",
    "Search the files under the working directory for a regular expression.",
    { pattern: str("the regular expression") },
    ["pattern"],
  ),
];

/** A function name the API accepts: [a-zA-Z0-9_-], at most 64 characters. */
function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

/** The built-in tools plus the session's connected MCP servers' tools. */
export function toolDefinitions(ctx: TurnContext): ChatTool[] {
  const mcp = ctx.mcp.tools().map((tool) => ({
    type: "function" as const,
    function: {
      name: safeName(`mcp__${tool.server}__${tool.name}`),
      description: tool.description ?? `${tool.name} (MCP server ${tool.server})`,
      parameters: tool.inputSchema,
    },
  }));
  return [...BUILTIN, ...mcp];
}

function field(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value !== "string") throw new Error(`missing string argument "${name}"`);
  return value;
}

/** Runs the tool the model named with its JSON arguments; errors become a failed result for the model to read. */
export async function executeTool(ctx: TurnContext, name: string, argumentsJson: string): Promise<ToolResult> {
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(argumentsJson || "{}");
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
      throw new Error("arguments must be a JSON object");
    args = parsed as Record<string, unknown>;
  } catch (error) {
    return { ok: false, output: `invalid arguments for ${name}: ${errorText(error)}` };
  }
  try {
    switch (name) {
      case "read_file":
        return await readTool(ctx, field(args, "path"));
      case "write_file":
        return await writeTool(ctx, field(args, "path"), field(args, "content"));
      case "edit_file":
        return await editTool(ctx, field(args, "path"), field(args, "old_text"), field(args, "new_text"));
      case "run_command":
        return await runTool(ctx, field(args, "command"), ctx.settings.runTimeoutMs);
      case "grep":
        return await grepTool(ctx, field(args, "pattern"));
    }
    const tool = ctx.mcp.tools().find((candidate) => safeName(`mcp__${candidate.server}__${candidate.name}`) === name);
    if (tool !== undefined) return await mcpTool(ctx, tool.server, tool.name, args);
    return { ok: false, output: `there is no tool named ${name}` };
  } catch (error) {
    if (ctx.turn.signal.aborted) throw error;
    return { ok: false, output: `${name} failed: ${errorText(error)}` };
  }
}
