// A small stdio agent written only against the installed @acpkit/sdk (its agent toolkit and Node entry): it greets
// and echoes the prompt's text, then ends the turn. Probes run it as a child process; alone it waits on stdin.
import { AgentSideConnection } from "@acpkit/sdk";
import { toolkitAgent } from "@acpkit/sdk/agent-toolkit";
import { stdioStream } from "@acpkit/sdk/node";

new AgentSideConnection(
  (conn) =>
    toolkitAgent(conn, {
      agentInfo: { name: "packed-echo-agent", version: "0.0.0" },
      onPrompt: async (turn) => {
        const text = turn.prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
        await turn.say(`echo from the packed library: ${text}`);
        return "end_turn";
      },
    }),
  stdioStream(),
);
