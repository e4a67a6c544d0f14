// One prompt turn by an acpkit client against the toolkit agent of the examples (examples/toolkit-agent.js, compiled
// against the installed @acpkit/sdk), over a stream given by the caller's transport: "stdio" (a child process),
// "http" (AcpServer on node:http, no `ws`) or "websocket" (listenAcp, which needs `ws`). Prints { profile,
// protocolVersion, agent, stopReason, text } as JSON.
import { createServer } from "node:http";
import { once } from "node:events";
import process from "node:process";
import { fileURLToPath, URL } from "node:url";
import { ClientSideConnection, PROTOCOL_VERSION } from "@acpkit/sdk";
import { AcpServer } from "@acpkit/sdk/remote";
import {
  connectRemote,
  createNodeHttpHandler,
  listenAcp,
  spawnAgentStream,
  stdioAgentConnector,
} from "@acpkit/sdk/node";

const transport = process.argv[2];
const argv = [process.execPath, fileURLToPath(new URL("./examples/toolkit-agent.js", import.meta.url))];
const closers = [];
let stream;
let profile = "stdio";
if (transport === "stdio") {
  const spawned = spawnAgentStream(argv[0], argv.slice(1), { stderr: "inherit" });
  stream = spawned.stream;
  closers.push(async () => {
    spawned.child.kill();
    if (spawned.child.exitCode === null && spawned.child.signalCode === null) await once(spawned.child, "exit");
  });
} else if (transport === "http") {
  const server = new AcpServer({ agent: stdioAgentConnector({ argv }) });
  const listener = createServer(createNodeHttpHandler(server));
  listener.listen(0, "127.0.0.1");
  await once(listener, "listening");
  closers.push(async () => {
    await server.close({ graceMs: 500 });
    listener.closeAllConnections();
    await new Promise((resolve) => listener.close(resolve));
  });
  stream = await connectRemote(`http://127.0.0.1:${listener.address().port}/acp`);
  profile = stream.profile;
} else if (transport === "websocket") {
  const listening = await listenAcp({ agent: stdioAgentConnector({ argv }) });
  closers.push(() => listening.close({ graceMs: 500 }));
  stream = await connectRemote(listening.webSocketUrl, { token: listening.token });
  profile = stream.profile;
} else {
  throw new Error(`turn.mjs: unknown transport ${transport}`);
}

const chunks = [];
const connection = new ClientSideConnection(
  () => ({
    async sessionUpdate({ update }) {
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text")
        chunks.push(update.content.text);
    },
    async requestPermission({ options }) {
      return { outcome: { outcome: "selected", optionId: options[0].optionId } };
    },
  }),
  stream,
);
const init = await connection.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
const { sessionId } = await connection.newSession({ cwd: process.cwd(), mcpServers: [] });
const { stopReason } = await connection.prompt({ sessionId, prompt: [{ type: "text", text: "hello" }] });
for (const close of closers) await close();
process.stdout.write(
  JSON.stringify({
    profile,
    protocolVersion: init.protocolVersion,
    agent: init.agentInfo?.name,
    stopReason,
    text: chunks.join(""),
  }),
);
