/**
 * Sessions outlive a transport connection (RFD, v1): a client that reconnects makes a new `initialize`, then
 * `session/load` on the new connection, and gets the history replayed. Over real sockets, for every client transport,
 * against `acp serve` running the reference agent (one process per connection, sessions persisted in a data
 * directory) and against the library running a toolkit agent over a `FileSessionStore` (`toolkitAgentConnector`).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { toolkitAgentConnector } from "../../../src/agent/toolkit/connector.js";
import { FileSessionStore, listenAcp, type ListeningAcpServer } from "../../../src/entries/node.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { CLIENT_TRANSPORTS, type ClientTransport, type RemoteTarget } from "./support/client-transports.js";
import { remoteClient } from "./support/remote-client.js";
import { ACP_MAIN, startServe, type ServeProcess } from "./support/serve-process.js";

const STEP = { timeout: 60_000 };

interface Persisting {
  name: string;
  start(dataDir: string): Promise<{ target: RemoteTarget; stop(): Promise<void> }>;
}

const SERVERS: Persisting[] = [
  {
    name: "acp serve running the reference agent",
    async start(dataDir) {
      const agent = [process.execPath, ACP_MAIN, "agent", "--data-dir", dataDir]
        .map((part) => JSON.stringify(part))
        .join(" ");
      const serve: ServeProcess = await startServe(["--agent", agent]);
      return {
        target: { url: serve.url, webSocketUrl: serve.webSocketUrl, token: serve.token },
        stop: async () => void (await serve.stop()),
      };
    },
  },
  {
    name: "the library running a toolkit agent over a FileSessionStore",
    async start(dataDir) {
      const connector = toolkitAgentConnector({
        store: new FileSessionStore({ dir: dataDir }),
        agentInfo: { name: "remote-toolkit-agent", version: "1.0.0" },
        onPrompt: async (turn) => {
          await turn.say(`you said: ${turn.text}`);
          return "end_turn";
        },
      });
      const listening: ListeningAcpServer = await listenAcp({ agent: connector, token: "toolkit-token" });
      return {
        target: { url: listening.url, webSocketUrl: listening.webSocketUrl, token: listening.token },
        stop: () => listening.close(),
      };
    },
  },
];

function describeLoad(server: Persisting, transport: ClientTransport): void {
  describe(`session/load on a new connection: ${transport.name} -> ${server.name}`, () => {
    let dataDir: string;
    let work: string;
    let running: { target: RemoteTarget; stop(): Promise<void> };

    before(async () => {
      dataDir = makeTempDir("acp-remote-data-");
      work = makeTempDir("acp-remote-work-");
      running = await server.start(dataDir);
    });
    after(async () => {
      await running?.stop();
      removeTempDir(dataDir);
      removeTempDir(work);
    });

    it("a session made on one connection is loaded, with its history, on the next", STEP, async () => {
      const first = await remoteClient(transport.open(running.target), work, transport.impl);
      const init = await first.initialize();
      assert.equal(init.agentCapabilities?.loadSession, true);
      const sessionId = await first.newSession(work);
      const turn = await first.prompt(sessionId, "remember the word pelican");
      assert.equal(turn.stopReason, "end_turn");
      const answer = first.host.texts(0, sessionId).join("");
      assert.ok(answer.length > 0, "the agent answered");
      first.close();
      await first.closed;

      const second = await remoteClient(transport.open(running.target), work, transport.impl);
      await second.initialize();
      await second.loadSession(sessionId, work);
      const replay = second.host.updates.filter((n) => n.sessionId === sessionId);
      const userText = replay
        .filter((n) => n.update.sessionUpdate === "user_message_chunk")
        .map((n) => (n.update as { content: { text?: string } }).content.text)
        .join("");
      assert.match(userText, /remember the word pelican/);
      assert.equal(second.host.texts(0, sessionId).join(""), answer, "the agent's answer is replayed as it was");
      const again = await second.prompt(sessionId, "and now?");
      assert.equal(again.stopReason, "end_turn");
      second.close();
      await second.closed;
    });
  });
}

for (const server of SERVERS) for (const transport of CLIENT_TRANSPORTS) describeLoad(server, transport);
