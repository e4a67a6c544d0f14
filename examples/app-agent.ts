/**
 * An ACP agent on the 2.x app API (`agent()`, handlers keyed by method), on stdio. It answers every prompt by
 * streaming the prompt's text back in upper case. Its client is app-client.ts:
 *
 *   node dist/examples/app-client.js        (starts this agent as a child process)
 */
import { agent, methods, type ContentBlock } from "@acpkit/sdk";
import { stdioStream } from "@acpkit/sdk/node";

let sessions = 0;

const app = agent({ name: "example-app-agent" })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: 1,
    agentCapabilities: {},
    agentInfo: { name: "example-app-agent", version: "1.0.0" },
  }))
  .onRequest(methods.agent.session.new, () => ({ sessionId: `session-${++sessions}` }))
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    const text = params.prompt
      .filter((block: ContentBlock) => block.type === "text")
      .map((block) => (block.type === "text" ? block.text : ""))
      .join(" ");
    for (const word of text.toUpperCase().split(" "))
      await client.notify(methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${word} ` } },
      });
    return { stopReason: "end_turn" };
  })
  .onNotification(methods.agent.session.cancel, () => {});

const connection = app.connect(stdioStream());
await connection.closed;
