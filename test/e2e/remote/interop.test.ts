/**
 * Remote interop over real sockets on 127.0.0.1: {server implementation} x {client implementation} x {profile}.
 * The server (a child process) hosts acpkit's reference agent with a file session store; the client is the 1.x
 * `ClientSideConnection` of the implementation under test on its remote stream (acpkit's through its drop-in
 * `experimental/*` entries), serving real files, terminals and permissions. One conversation per cell:
 * initialize, session/new, a streamed prompt, a permission round trip writing a file on the client side, a file
 * read, a terminal, cancel, then a second connection that loads the session, with cookies and the DELETE checked
 * on the wire.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { within } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import {
  ClientHost,
  CLIENT_IMPLS,
  connectClient,
  cookieStoreOf,
  initialize,
  PROFILES,
  type ClientImpl,
  type Profile,
  type RemoteClient,
} from "./support/client.js";
import { SERVER_IMPLS, startServer, type RunningServer, type ServerImpl } from "./support/server.js";

const STEP = { timeout: 60_000 };
const COOKIE = "affinity=node-7";

function describeCell(serverImpl: ServerImpl, clientImpl: ClientImpl, profile: Profile): void {
  describe(`${clientImpl} client -> ${serverImpl} server over ${profile}`, () => {
    let server: RunningServer;
    let work: string;
    let data: string;
    let host: ClientHost;
    let client: RemoteClient;
    let sessionId: string;
    let cookies: Awaited<ReturnType<typeof cookieStoreOf>>;

    before(async () => {
      work = makeTempDir("acp-remote-work-");
      data = makeTempDir("acp-remote-data-");
      server = await startServer(serverImpl, { dataDir: data, cookie: COOKIE });
      host = new ClientHost(work);
      cookies = await cookieStoreOf(clientImpl);
      client = await connectClient(clientImpl, profile, server.url(), host, {
        cookieStore: cookies,
        headers: { "X-Extra": "hello" },
      });
    });

    after(async () => {
      await client?.close().catch(() => {});
      host?.dispose();
      await server?.stop();
      removeTempDir(work);
      removeTempDir(data);
    });

    const prompt = async (text: string) => {
      const mark = host.updates.length;
      const response = await client.connection.prompt({ sessionId, prompt: [{ type: "text", text }] });
      return { response, texts: host.texts(mark, sessionId).join("") };
    };

    it("initialize answers with the agent's info and capabilities", STEP, async () => {
      const init = await initialize(client);
      assert.equal(init.agentInfo?.name, "acpkit-reference-agent");
      assert.equal(init.agentCapabilities?.loadSession, true);
    });

    it("session/new", STEP, async () => {
      sessionId = (await client.connection.newSession({ cwd: work, mcpServers: [] })).sessionId;
      assert.match(sessionId, /\S/);
    });

    it("a prompt streams its updates, in order, before its response", STEP, async () => {
      const { response, texts } = await prompt("/stream 40");
      assert.equal(response.stopReason, "end_turn");
      assert.equal(texts, Array.from({ length: 40 }, (_, i) => `chunk ${i + 1}\n`).join(""));
    });

    it("a permission round trip, then the agent's write lands in the client's files", STEP, async () => {
      host.permissionPolicy = "allow";
      const asked = host.permissionRequests.length;
      const { response, texts } = await prompt("/write out.txt written over the wire");
      assert.equal(response.stopReason, "end_turn");
      assert.equal(host.permissionRequests.length, asked + 1);
      assert.equal(readFileSync(join(work, "out.txt"), "utf8"), "written over the wire");
      assert.match(texts, /Done/);
    });

    it("a rejected permission leaves the file alone", STEP, async () => {
      host.permissionPolicy = "reject";
      const { texts } = await prompt("/write out.txt never");
      host.permissionPolicy = "allow";
      assert.match(texts, /Not written/);
      assert.equal(readFileSync(join(work, "out.txt"), "utf8"), "written over the wire");
    });

    it("fs/read_text_file is served by the client", STEP, async () => {
      writeFileSync(join(work, "in.txt"), "one\ntwo\nthree\n");
      const { texts } = await prompt("/read in.txt");
      assert.match(texts, /Read in\.txt: 3 lines/);
    });

    it("a terminal runs on the client side: create, output, wait_for_exit, release", STEP, async () => {
      const { created, released } = host.terminals;
      const { response, texts } = await prompt("/run echo remote-terminal");
      assert.equal(response.stopReason, "end_turn");
      assert.match(texts, /remote-terminal/);
      assert.equal(host.terminals.created, created + 1);
      assert.equal(host.terminals.released, released + 1);
    });

    it("session/cancel ends a running turn with stopReason cancelled", STEP, async () => {
      const mark = host.updates.length;
      const running = client.connection.prompt({ sessionId, prompt: [{ type: "text", text: "/slow 60000" }] });
      await host.until(
        () => host.texts(mark, sessionId).some((t) => t.startsWith("Working")),
        20_000,
        "the turn to start",
      );
      await client.connection.cancel({ sessionId });
      assert.equal((await within(running, 20_000, "the cancelled turn")).stopReason, "cancelled");
    });

    it("cookies set by the server come back on later requests", STEP, async () => {
      const first = server.requests[0]!;
      const later = server.requests.slice(1);
      assert.ok(
        server.requests.every((r) => r.extra === "hello"),
        "the extra header is on every request",
      );
      if (profile === "http") {
        assert.equal(first.cookie, null);
        assert.ok(
          later.length > 0 && later.every((r) => r.cookie === COOKIE),
          `cookies: ${JSON.stringify(later.map((r) => r.cookie))}`,
        );
      }
    });

    it(
      "after initialize, acpkit's client sends Acp-Protocol-Version on every request (the RFD's SHOULD), and " +
        "the server takes it",
      STEP,
      async () => {
        if (clientImpl !== "acpkit" || profile !== "http") return;
        const [first, ...later] = server.requests;
        assert.equal(first!.protocolVersion, null, "not on initialize: no version is agreed yet");
        assert.ok(
          later.length > 0 && later.every((r) => r.protocolVersion === "1"),
          `versions: ${JSON.stringify(later.map((r) => r.protocolVersion))}`,
        );
        assert.ok(
          later.every((r) => r.status !== null && r.status < 400),
          `statuses: ${JSON.stringify(later.map((r) => r.status))}`,
        );
      },
    );

    it("closing ends the connection on the server (HTTP: DELETE answered 202)", STEP, async () => {
      const mark = server.requests.length;
      await client.close();
      if (profile === "http") {
        const deleted = await server.until((r) => r.method === "DELETE", "the DELETE", 10_000, mark);
        assert.equal(deleted.status, 202);
        assert.match(deleted.connectionId ?? "", /\S/);
      }
    });

    it("session/load on a new connection replays the history; the session takes prompts again", STEP, async () => {
      const mark = server.requests.length;
      client = await connectClient(clientImpl, profile, server.url(), host, {
        cookieStore: cookies,
        headers: { "X-Extra": "hello" },
      });
      await initialize(client);
      const seen = host.updates.length;
      await client.connection.loadSession({ sessionId, cwd: work, mcpServers: [] });
      const replayed = host.updates.slice(seen).filter((u) => u.sessionId === sessionId);
      const userTexts = replayed.flatMap((u) =>
        u.update.sessionUpdate === "user_message_chunk" && u.update.content.type === "text"
          ? [u.update.content.text]
          : [],
      );
      assert.ok(userTexts.includes("/stream 40"), `replayed user messages: ${JSON.stringify(userTexts)}`);
      const { response, texts } = await prompt("/stream 3");
      assert.equal(response.stopReason, "end_turn");
      assert.equal(texts, "chunk 1\nchunk 2\nchunk 3\n");
      // The affinity cookie from the first connection goes back on the new one (a shared cookie store).
      assert.equal(server.requests[mark]!.cookie, COOKIE);
    });
  });
}

for (const serverImpl of SERVER_IMPLS) {
  for (const clientImpl of CLIENT_IMPLS) {
    for (const profile of PROFILES) describeCell(serverImpl, clientImpl, profile);
  }
}
