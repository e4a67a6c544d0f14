/**
 * A complete ACP agent on stdio, built with the agent toolkit: it streams its answer, reports a tool call, asks the
 * user's permission before running it, and keeps its sessions on disk (so a client can load or resume them after a
 * restart). Run it behind any ACP client:
 *
 *   acp exec --agent "node dist/examples/toolkit-agent.js" "count the words of this prompt"
 *   acp check agent -- node dist/examples/toolkit-agent.js
 *
 * Sessions go to `<data dir>/acpkit-example-agent/sessions` (`ACPKIT_DATA_DIR` moves the data directory).
 */
import { join } from "node:path";
import { AgentSideConnection } from "@acpkit/sdk";
import { textContent, toolkitAgent } from "@acpkit/sdk/agent-toolkit";
import { FileSessionStore, stdioStream, userDataDir } from "@acpkit/sdk/node";

const store = new FileSessionStore({ dir: join(userDataDir("acpkit-example-agent"), "sessions") });

const connection = new AgentSideConnection(
  (client) =>
    toolkitAgent(client, {
      agentInfo: { name: "example-toolkit-agent", version: "1.0.0" },
      store,
      async onPrompt(turn) {
        // Streaming: each say() is one agent_message_chunk.
        for (const word of ["Let ", "me ", "count ", "the ", "words. "]) await turn.say(word);

        // A tool call, shown to the user, that runs only with their permission.
        const call = turn.toolCall({ title: "Count the words of the prompt", kind: "think", status: "pending" });
        const decision = await turn.requestPermission(call);
        if (!decision.allowed) {
          await call.fail("the user said no");
          await turn.say("You said no, so I did not count them.");
          return "end_turn";
        }
        await call.start();
        const words = turn.text.split(/\s+/).filter((word) => word !== "").length;
        await call.complete({ content: [textContent(`${words} words`)] });
        await turn.say(`Your prompt has ${words} word${words === 1 ? "" : "s"}.`);
        return "end_turn";
      },
    }),
  stdioStream(),
);

// The client closed its end: let the store finish writing, then exit.
await connection.closed;
await store.close();
