/**
 * An ACP agent on the network: a toolkit agent served over Streamable HTTP and WebSocket (`listenAcp`, which needs
 * the `ws` package: `npm install ws@8`). One agent per connection over a shared on-disk session store, so a client
 * can load on a new connection the session it created on another. Loopback only, behind a bearer token (generated
 * unless `ACP_TOKEN` is set). Prints the endpoint and the token, then serves until SIGINT or SIGTERM.
 *
 *   node dist/examples/remote-server.js [port]
 *   ACP_TOKEN=<token> node dist/examples/remote-client.js http://127.0.0.1:<port>/acp "hello"
 */
import { join } from "node:path";
import { toolkitAgentConnector } from "@acpkit/sdk/agent-toolkit";
import { FileSessionStore, listenAcp, userDataDir } from "@acpkit/sdk/node";

const store = new FileSessionStore({ dir: join(userDataDir("acpkit-example-server"), "sessions") });
const listening = await listenAcp({
  port: Number(process.argv[2] ?? 0),
  ...(process.env.ACP_TOKEN ? { token: process.env.ACP_TOKEN } : {}),
  agent: toolkitAgentConnector({
    agentInfo: { name: "example-remote-agent", version: "1.0.0" },
    store,
    async onPrompt(turn) {
      await turn.say(`You said: ${turn.text}`);
      return "end_turn";
    },
  }),
});
process.stdout.write(`url ${listening.url}\ntoken ${listening.token}\n`);

// Stop cleanly: running turns are cancelled, connections closed, the store flushed.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    void listening
      .close()
      .then(() => store.close())
      .then(() => process.stdout.write("stopped\n"));
  });
