import { AgentSideConnection } from "@acpkit/sdk";
import type { Agent } from "@acpkit/sdk";
import { RequestError } from "@acpkit/sdk";
import { stdioStream } from "@acpkit/sdk/node";
import type * as schema from "@acpkit/sdk";
import { PROTOCOL_VERSION } from "@acpkit/sdk";

/**
 * The demo agent: a deterministic acpkit agent on stdio that shows a prompt turn's moving parts (a plan, a thought,
 * a tool call that reads a file through the client, a permission request before writing one, streamed text, usage).
 * The reference agent (`acp agent`) will supersede it.
 */
class DemoAgent implements Agent {
  private readonly sessions = new Map<string, { cwd: string; cancelled: boolean }>();
  private nextSession = 1;

  constructor(private readonly client: AgentSideConnection) {}

  initialize(params: schema.InitializeRequest): schema.InitializeResponse {
    return {
      protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
      agentCapabilities: { loadSession: false, promptCapabilities: { embeddedContext: true } },
      agentInfo: { name: "acpkit-demo-agent", title: "acpkit demo agent", version: "0.1.0" },
      authMethods: [],
    };
  }

  newSession(params: schema.NewSessionRequest): schema.NewSessionResponse {
    const sessionId = `demo-${this.nextSession++}`;
    this.sessions.set(sessionId, { cwd: params.cwd, cancelled: false });
    return { sessionId };
  }

  authenticate(): void {}

  async cancel(params: schema.CancelNotification): Promise<void> {
    const session = this.sessions.get(params.sessionId);
    if (session) session.cancelled = true;
  }

  async prompt(params: schema.PromptRequest): Promise<schema.PromptResponse> {
    const session = this.sessions.get(params.sessionId);
    if (!session) throw RequestError.resourceNotFound(params.sessionId);
    session.cancelled = false;
    const say = (update: schema.SessionUpdate) => this.client.sessionUpdate({ sessionId: params.sessionId, update });
    const text = params.prompt.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ");
    const plan = (read: schema.PlanEntryStatus, write: schema.PlanEntryStatus) =>
      say({
        sessionUpdate: "plan",
        entries: [
          { content: "Read notes.txt", priority: "high", status: read },
          { content: "Write summary.md", priority: "medium", status: write },
        ],
      });

    await plan("in_progress", "pending");
    await say({
      sessionUpdate: "agent_thought_chunk",
      content: { type: "text", text: `The user said: "${text}". I will read notes.txt first.` },
    });
    const notesPath = `${session.cwd}/notes.txt`;
    await say({
      sessionUpdate: "tool_call",
      toolCallId: "read-1",
      title: "Read notes.txt",
      kind: "read",
      status: "in_progress",
      locations: [{ path: notesPath }],
    });
    const { content } = await this.client.readTextFile({ sessionId: params.sessionId, path: notesPath });
    const lines = content.split("\n").filter((line) => line.trim() !== "");
    await say({
      sessionUpdate: "tool_call_update",
      toolCallId: "read-1",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: `${lines.length} lines` } }],
    });
    await plan("completed", "in_progress");

    const summaryPath = `${session.cwd}/summary.md`;
    const summary = `# Summary\n\n${lines.map((line) => `- ${line}`).join("\n")}\n`;
    await say({
      sessionUpdate: "tool_call",
      toolCallId: "write-1",
      title: "Write summary.md",
      kind: "edit",
      status: "pending",
      content: [{ type: "diff", path: summaryPath, oldText: null, newText: summary }],
    });
    const permission = await this.client.requestPermission({
      sessionId: params.sessionId,
      toolCall: { toolCallId: "write-1", title: "Write summary.md", kind: "edit" },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    });
    if (permission.outcome.outcome === "cancelled" || session.cancelled) return { stopReason: "cancelled" };
    const allowed = permission.outcome.optionId === "allow";
    if (allowed) await this.client.writeTextFile({ sessionId: params.sessionId, path: summaryPath, content: summary });
    await say({ sessionUpdate: "tool_call_update", toolCallId: "write-1", status: allowed ? "completed" : "failed" });
    await plan("completed", allowed ? "completed" : "pending");

    const answer = allowed
      ? `I read ${lines.length} lines from notes.txt and wrote summary.md with one bullet per line.`
      : "I read notes.txt but did not write summary.md, as you asked.";
    for (const word of answer.split(/(?<= )/))
      await say({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: word } });
    await say({ sessionUpdate: "usage_update", used: 1200 + text.length, size: 200_000 });
    return { stopReason: "end_turn" };
  }
}

new AgentSideConnection((connection) => new DemoAgent(connection), stdioStream());
