/**
 * An ACP client of a remote agent: `connectRemote` speaks WebSocket when `ws` is installed and Streamable HTTP
 * otherwise (or as told: `{ profile: "http" }`), with the bearer token from `ACP_TOKEN`. One prompt turn, the
 * answer on stdout, then the connection closed.
 *
 *   ACP_TOKEN=<token> node dist/examples/remote-client.js http://127.0.0.1:<port>/acp ["prompt"]
 */
import { ClientSideConnection, type ContentBlock } from "@acpkit/sdk";
import { connectRemote } from "@acpkit/sdk/node";

const [url, ...words] = process.argv.slice(2);
if (url === undefined) {
  process.stderr.write("usage: node remote-client.js URL [prompt]   (the token in ACP_TOKEN)\n");
  process.exit(2);
}
const stream = await connectRemote(url, process.env.ACP_TOKEN ? { token: process.env.ACP_TOKEN } : {});
let answer = "";
const connection = new ClientSideConnection(
  () => ({
    async sessionUpdate({ update }) {
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text")
        answer += update.content.text;
    },
    async requestPermission() {
      return { outcome: { outcome: "cancelled" } };
    },
  }),
  stream,
);
try {
  await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.newSession({ cwd: process.cwd(), mcpServers: [] });
  const prompt: ContentBlock[] = [{ type: "text", text: words.join(" ") || "hello" }];
  const { stopReason } = await connection.prompt({ sessionId, prompt });
  process.stdout.write(`${answer}\n(${stream.profile}, ${stopReason})\n`);
} finally {
  connection.close();
  await connection.closed;
}
