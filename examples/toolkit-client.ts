/**
 * An ACP client built with the client toolkit: it starts an agent (toolkit-agent.js next to this file, or the
 * command given after `--`), follows the session in a `Transcript` (messages, tool calls, plans folded from
 * `session/update`), answers permission requests with a policy, sends one prompt, prints the transcript, and ends
 * cleanly: the connection closed, the agent stopped, nothing left running.
 *
 *   node dist/examples/toolkit-client.js [--deny] ["prompt"] [-- agent command...]
 *
 * `--deny` rejects every permission request (the default allows them all).
 */
import { fileURLToPath } from "node:url";
import { ClientSideConnection } from "@acpkit/sdk";
import { allowAll, denyAll, PermissionBroker, TranscriptRouter, type Transcript } from "@acpkit/sdk/client-toolkit";
import { launchAgent } from "@acpkit/sdk/node";

const args = process.argv.slice(2);
const dash = args.indexOf("--");
const own = dash === -1 ? args : args.slice(0, dash);
const deny = own.includes("--deny");
const prompt = own.filter((arg) => arg !== "--deny").join(" ") || "count the words of this prompt please";
const argv =
  dash === -1
    ? [process.execPath, fileURLToPath(new URL("./toolkit-agent.js", import.meta.url))]
    : args.slice(dash + 1);

const agent = await launchAgent({ argv, startupTimeoutMs: 20_000 });
const router = new TranscriptRouter();
const broker = new PermissionBroker(deny ? denyAll() : allowAll(), {
  lookupToolCall: (sessionId, toolCallId) => router.get(sessionId)?.toolCall(toolCallId),
});
const connection = new ClientSideConnection(
  () => ({
    sessionUpdate: async (notification) => router.route(notification),
    requestPermission: (params) => broker.request(params),
  }),
  agent.stream,
);

try {
  const init = await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
  const created = await connection.newSession({ cwd: process.cwd(), mcpServers: [] });
  const transcript = router.open(created.sessionId, created);
  const content = [{ type: "text" as const, text: prompt }];
  transcript.beginTurn(content);
  const { stopReason } = await connection.prompt({ sessionId: created.sessionId, prompt: content });
  transcript.endTurn(stopReason);
  process.stdout.write(`${init.agentInfo?.name ?? "the agent"} answered (${stopReason}):\n${outline(transcript)}`);
} finally {
  // Ending cleanly: close the connection (anything still pending rejects), then stop the agent's process tree.
  connection.close();
  await connection.closed;
  await agent.stop();
}

/** One line per transcript entry: who said what, which tool ran and how it ended. */
function outline(transcript: Transcript): string {
  return transcript.entries
    .map((entry) => {
      if (entry.kind === "message") return `  ${entry.role}: ${entry.text}\n`;
      if (entry.kind === "tool_call") return `  tool: ${entry.toolCall.title} (${entry.toolCall.status})\n`;
      return `  ${entry.kind}\n`;
    })
    .join("");
}
