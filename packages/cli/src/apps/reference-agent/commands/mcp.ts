/**
 * `/mcp` (the session's MCP servers: their tools, or why they failed) and `/mcp-call SERVER TOOL JSON` (calls one, in a
 * tool call).
 */
import { mcpTool } from "../tools/mcp-tool.js";
import { errorText } from "../tools/result.js";
import { splitFirst, type RefCommand } from "./registry.js";

export const mcpCommands: RefCommand[] = [
  {
    name: "mcp",
    description: "List the session's MCP servers and their tools",
    async run(ctx) {
      const servers = ctx.mcp.servers;
      if (servers.length === 0)
        return ctx.turn.say("This session has no MCP servers (the client passes them in session/new).");
      const lines = servers.map((server) => {
        const state =
          server.state === "connected"
            ? `${server.tools.length} tool${server.tools.length === 1 ? "" : "s"}`
            : `${server.state === "failed" ? "failed" : "closed"}: ${server.error ?? "not connected"}`;
        const head =
          `- ${server.name} (${server.transport}${server.pid !== undefined ? `, pid ${server.pid}` : ""}): ` +
          `${state}`;
        return [
          head,
          ...server.tools.map((tool) => `  - ${tool.name}${tool.description ? `: ${tool.description}` : ""}`),
        ].join("\n");
      });
      await ctx.turn.say(`MCP servers:\n${lines.join("\n")}`);
    },
  },
  {
    name: "mcp-call",
    description: "Call a tool of one of the session's MCP servers with JSON arguments",
    input: { hint: "SERVER TOOL JSON" },
    async run(ctx, args) {
      const [server, rest] = splitFirst(args);
      const [tool, json] = splitFirst(rest);
      if (server === "" || tool === "") return ctx.turn.say("Usage: /mcp-call SERVER TOOL JSON");
      let input: Record<string, unknown>;
      try {
        const parsed: unknown = json.trim() === "" ? {} : JSON.parse(json);
        if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
          throw new Error("the arguments must be a JSON object");
        input = parsed as Record<string, unknown>;
      } catch (error) {
        return ctx.turn.say(`Invalid JSON arguments: ${errorText(error)}`);
      }
      const result = await mcpTool(ctx, server, tool, input);
      await ctx.turn.say(
        result.ok ? `${server}/${tool} returned: ${result.output}` : `${server}/${tool} failed: ${result.output}`,
      );
    },
  },
];
