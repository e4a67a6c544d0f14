import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@acpkit/sdk";
import { ClientSideConnection } from "@acpkit/sdk";
import { spawnAgentStream } from "@acpkit/sdk/node";
import { silentLogger } from "@acpkit/sdk";
import type * as schema from "@acpkit/sdk";
import { PROTOCOL_VERSION } from "@acpkit/sdk";
import type { Painter } from "../shared/painter.js";

/** What the demo prints, line by line, as the turn unfolds. */
class DemoClient implements Client {
  private inMessage = false;

  constructor(
    private readonly paint: Painter,
    private readonly out: (text: string) => void,
  ) {}

  requestPermission(params: schema.RequestPermissionRequest): schema.RequestPermissionResponse {
    const choice = params.options.find((option) => option.kind === "allow_once") ?? params.options[0]!;
    this.line(
      `${this.paint.yellow("? permission")} ${params.toolCall.title ?? params.toolCall.toolCallId}: ` +
        `${params.options.map((o) => o.name).join(" / ")} -> ${choice.name} (auto)`,
    );
    return { outcome: { outcome: "selected", optionId: choice.optionId } };
  }

  sessionUpdate({ update }: schema.SessionNotification): void {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (update.content.type === "text") {
          if (!this.inMessage) this.out(this.paint.bold("agent: "));
          this.inMessage = true;
          this.out(update.content.text);
        }
        return;
      case "agent_thought_chunk":
        if (update.content.type === "text") this.line(this.paint.dim(`thinking: ${update.content.text}`));
        return;
      case "plan":
        this.line(
          `${this.paint.cyan("plan")} ${update.entries.map((e) => `[${e.status === "completed" ? "x" : e.status === "in_progress" ? ">" : " "}] ${e.content}`).join("  ")}`,
        );
        return;
      case "tool_call":
        this.line(
          `${this.paint.cyan("tool")} ${update.kind ?? "other"}: ${update.title} (${update.status ?? "pending"})`,
        );
        return;
      case "tool_call_update":
        this.line(`${this.paint.cyan("tool")} ${update.toolCallId} -> ${update.status ?? "updated"}`);
        return;
      case "usage_update":
        this.line(this.paint.dim(`usage: ${update.used} of ${update.size} tokens`));
        return;
      default:
        this.line(this.paint.dim(`(${update.sessionUpdate})`));
    }
  }

  readTextFile(params: schema.ReadTextFileRequest): schema.ReadTextFileResponse {
    this.line(this.paint.dim(`fs: the agent reads ${params.path}`));
    return { content: readFileSync(params.path, "utf8") };
  }

  writeTextFile(params: schema.WriteTextFileRequest): void {
    this.line(this.paint.dim(`fs: the agent writes ${params.path}`));
    mkdirSync(dirname(params.path), { recursive: true });
    writeFileSync(params.path, params.content);
  }

  private line(text: string): void {
    if (this.inMessage) this.out("\n");
    this.inMessage = false;
    this.out(`${text}\n`);
  }
}

/**
 * `acp demo`: spawns the demo agent as a child process and drives one prompt turn over its stdio pipes, printing
 * every step. Returns the process exit code.
 */
export async function runDemo(paint: Painter, out: (text: string) => void): Promise<number> {
  const workspace = mkdtempSync(join(tmpdir(), "acpkit-demo-"));
  writeFileSync(
    join(workspace, "notes.txt"),
    "ACP is JSON-RPC between editors and agents\nacpkit speaks both sides\nIt is a drop-in for the official SDK\n",
  );
  const agentScript = join(dirname(fileURLToPath(import.meta.url)), "demo-agent.js");
  const { stream, child } = spawnAgentStream(process.execPath, [agentScript], { cwd: workspace });
  const client = new DemoClient(paint, out);
  const connection = new ClientSideConnection(() => client, stream, { logger: silentLogger }); // the demo prints its own steps
  try {
    out(`${paint.dim(`spawned the demo agent (pid ${child.pid}); workspace ${workspace}`)}\n`);
    const init = await connection.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      clientInfo: { name: "acp-demo-client", version: "0.1.0" },
    });
    out(
      `${paint.green("initialized")} ${init.agentInfo?.title ?? init.agentInfo?.name ?? "agent"}, protocol ` +
        `v${init.protocolVersion}\n`,
    );
    const { sessionId } = await connection.newSession({ cwd: workspace, mcpServers: [] });
    out(`${paint.green("session")} ${sessionId}\n${paint.bold("you: ")}Summarise notes.txt into summary.md\n`);
    const started = performance.now();
    const response = await connection.prompt({
      sessionId,
      prompt: [{ type: "text", text: "Summarise notes.txt into summary.md" }],
    });
    out(`\n${paint.green("stop")} ${response.stopReason} after ${(performance.now() - started).toFixed(1)} ms\n`);
    out(`${paint.dim("summary.md now reads:")}\n${readFileSync(join(workspace, "summary.md"), "utf8")}`);
    return response.stopReason === "end_turn" ? 0 : 1;
  } finally {
    connection.close("demo finished");
    child.kill();
    rmSync(workspace, { recursive: true, force: true });
  }
}
