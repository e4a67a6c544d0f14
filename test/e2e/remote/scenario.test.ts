/**
 * A whole conversation over real sockets on 127.0.0.1, for every client transport (official createHttpStream and
 * createWebSocketStream today) against acpkit's server library (`listenAcp` with the stdio connector) and against
 * `acp serve` in a child process. The agent is the interop fixture (2.x app API on acpkit) in its own process, one
 * per connection; the client serves real files, a real terminal and permission answers.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { listenAcp, stdioAgentConnector, type ListeningAcpServer } from "../../../src/entries/node.js";
import { chunks } from "../interop/support/scenario.js";
import { fixturePath } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { CLIENT_TRANSPORTS, type ClientTransport, type RemoteTarget } from "./support/client-transports.js";
import { remoteClient, type RemoteClient } from "./support/remote-client.js";
import { fixtureAgentCommand, startServe, waitForExit, type ServeProcess } from "./support/serve-process.js";

const STEP = { timeout: 30_000 };

/** A server under test: where it listens, and the pid of the agent process serving the latest connection. */
interface ServerUnderTest {
  target: RemoteTarget;
  latestAgentPid(): Promise<number>;
  stop(): Promise<void>;
}

async function libraryServer(): Promise<ServerUnderTest> {
  const pids: number[] = [];
  const waiters: Array<() => void> = [];
  const connector = stdioAgentConnector({
    argv: [process.execPath, fixturePath("interop-agent-app"), "--impl=acpkit"],
    onProcess: (event) => {
      if (event.type !== "started") return;
      pids.push(event.pid);
      for (const wake of waiters.splice(0)) wake();
    },
  });
  const listening: ListeningAcpServer = await listenAcp({ agent: connector, token: "library-token" });
  return {
    target: { url: listening.url, webSocketUrl: listening.webSocketUrl, token: listening.token },
    latestAgentPid: async () => {
      while (pids.length === 0) await new Promise<void>((resolve) => waiters.push(resolve));
      return pids.at(-1)!;
    },
    stop: () => listening.close(),
  };
}

async function serveServer(): Promise<ServerUnderTest> {
  const serve: ServeProcess = await startServe(["--agent", fixtureAgentCommand(), "--verbose"]);
  return {
    target: { url: serve.url, webSocketUrl: serve.webSocketUrl, token: serve.token },
    latestAgentPid: async () => {
      const lines = [...serve.stderr().matchAll(/\| \[agent (\d+)\] interop-agent-app on acpkit ready/g)];
      if (lines.length > 0) return Number(lines.at(-1)![1]);
      return Number((await serve.waitForStderr(/\| \[agent (\d+)\] interop-agent-app on acpkit ready/))[1]);
    },
    stop: async () => {
      const status = await serve.stop();
      assert.deepEqual(status, { code: 0, signal: null }, `acp serve exits 0 on SIGTERM; stderr:\n${serve.stderr()}`);
    },
  };
}

const SERVERS: Array<[string, () => Promise<ServerUnderTest>]> = [
  ["acpkit server library (listenAcp + stdio connector)", libraryServer],
  ["acp serve (child process)", serveServer],
];

function describeScenario(
  serverName: string,
  startServer: () => Promise<ServerUnderTest>,
  transport: ClientTransport,
): void {
  describe(`${transport.name} -> ${serverName}`, () => {
    let server: ServerUnderTest;
    let work: string;
    let client: RemoteClient;
    let sessionId: string;

    before(async () => {
      server = await startServer();
      work = makeTempDir("acp-remote-work-");
    });

    after(async () => {
      client?.close();
      await server?.stop();
      removeTempDir(work);
    });

    const prompt = async (text: string) => {
      const mark = client.host.updates.length;
      const response = await client.prompt(sessionId, text);
      return { response, texts: client.host.texts(mark, sessionId), updates: client.host.updates.slice(mark) };
    };

    it("initialize and session/new", STEP, async () => {
      // Made here, not in before(): the official WebSocket client throws if it is closed before it connected.
      client = await remoteClient(transport.open(server.target), work, transport.impl);
      const init = await client.initialize();
      assert.equal(init.agentInfo?.name, "interop-agent-app");
      assert.equal(init.agentCapabilities?.loadSession, true);
      sessionId = await client.newSession(work);
      assert.match(sessionId, /^sess-\d+$/);
    });

    it("a prompt streams 500 updates, all received in order before its response", STEP, async () => {
      const { response, texts } = await prompt("stream 500");
      assert.equal(response.stopReason, "end_turn");
      assert.deepEqual(texts, chunks(500));
    });

    it("a permission round trip", STEP, async () => {
      client.host.permissionPolicy = "allow";
      const { response, texts, updates } = await prompt("permission");
      assert.equal(response.stopReason, "end_turn");
      assert.deepEqual(
        updates.map((u) => u.update.sessionUpdate),
        ["tool_call", "tool_call_update", "agent_message_chunk"],
      );
      assert.deepEqual(texts, [`outcome: ${JSON.stringify({ outcome: "selected", optionId: "allow" })}`]);
    });

    it("fs/read_text_file and fs/write_text_file served by the client on real files", STEP, async () => {
      writeFileSync(join(work, "input.txt"), "alpha\nbeta\ngamma\n");
      const { response, texts } = await prompt("fs");
      assert.equal(response.stopReason, "end_turn");
      assert.equal(readFileSync(join(work, "output.txt"), "utf8"), "ALPHA\nBETA\nGAMMA\n");
      assert.deepEqual(texts, [
        `read: ${JSON.stringify("alpha\nbeta\ngamma\n")}`,
        `line 2: ${JSON.stringify("beta\n")}`,
      ]);
    });

    it("a terminal served by the client: create, output, wait_for_exit, release", STEP, async () => {
      const { response, texts } = await prompt("terminal");
      assert.equal(response.stopReason, "end_turn");
      assert.deepEqual(texts, [`terminal: ${JSON.stringify({ exitCode: 0, output: "hi\n", truncated: false })}`]);
      assert.equal(client.host.terminals.open, 0);
    });

    it("two sessions prompt at once, each on its own stream, in order", STEP, async () => {
      const other = await client.newSession(work);
      const mark = client.host.updates.length;
      const [a, b] = await Promise.all([client.prompt(sessionId, "stream 200"), client.prompt(other, "stream 150")]);
      assert.deepEqual([a.stopReason, b.stopReason], ["end_turn", "end_turn"]);
      assert.deepEqual(client.host.texts(mark, sessionId), chunks(200));
      assert.deepEqual(client.host.texts(mark, other), chunks(150));
    });

    it("session/cancel ends a running prompt with stopReason cancelled", STEP, async () => {
      const mark = client.host.updates.length;
      const running = client.prompt(sessionId, "slow");
      await client.host.until(
        () => client.host.texts(mark, sessionId).includes("waiting"),
        10_000,
        'the "waiting" update',
      );
      await client.cancel(sessionId);
      assert.equal((await running).stopReason, "cancelled");
    });

    it("session/load replays the history before it answers", STEP, async () => {
      const mark = client.host.updates.length;
      await client.loadSession("sess-earlier", work);
      assert.deepEqual(
        client.host.updates.slice(mark).map((n) => [n.sessionId, n.update.sessionUpdate]),
        [
          ["sess-earlier", "user_message_chunk"],
          ["sess-earlier", "agent_message_chunk"],
        ],
      );
    });

    it(
      `closing the client (${transport.profile === "http" ? "DELETE" : "socket close"}) stops the ` +
        `connection's agent process`,
      STEP,
      async () => {
        const pid = await server.latestAgentPid();
        client.close();
        await client.closed;
        await waitForExit(pid);
      },
    );
  });
}

for (const [serverName, startServer] of SERVERS) {
  for (const transport of CLIENT_TRANSPORTS) describeScenario(serverName, startServer, transport);
}
