/**
 * `acp inspect --attach`'s observer source against a real shared session: it checks the session is live before the
 * inspector starts (and says what is wrong when not), then feeds the observer lane with the session's history and
 * live updates, and ends the lane when the session ends.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { sharedSessionObserver, type LaneHandle } from "@acpkit/cli/inspect";
import { listenAcp, type ListeningAcpServer } from "../../../src/entries/node.js";
import { sharedTestAgent } from "./support/shared-agent.js";
import { acpkitParticipant } from "./support/participants.js";

const TOKEN = "inspect-observer-token";
let server: ListeningAcpServer;

before(async () => {
  server = await listenAcp({ agent: sharedTestAgent(), token: TOKEN, sharedSessions: true });
});
after(() => server.close());

it(
  "observes a live session: history, then live, then the end; a missing session is named",
  { timeout: 60_000 },
  async () => {
    const target = { url: server.url, webSocketUrl: server.webSocketUrl, token: TOKEN };
    const owner = await acpkitParticipant("owner", target, "websocket");
    const { sessionId } = await owner.request("session/new", { cwd: "/tmp", mcpServers: [] });
    await owner.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "stream 3" }] });
    const source = sharedSessionObserver(TOKEN);
    await assert.rejects(source.probe!(server.url, "nope"), /not live at .*live sessions: .*acp sessions URL/);
    await assert.rejects(sharedSessionObserver("wrong").probe!(server.url, sessionId), /needs its token/);
    await source.probe!(server.url, sessionId);
    const frames: { from: string; message: any }[] = [];
    const ended: string[] = [];
    const lane = {
      bytes: (from: "client" | "agent", chunk: Uint8Array) => {
        for (const line of new TextDecoder().decode(chunk).split("\n").filter(Boolean))
          frames.push({ from, message: JSON.parse(line) });
      },
      end: (from: "client" | "agent") => ended.push(from),
    } as unknown as LaneHandle;
    const observing = source.observe(server.url, sessionId, lane);
    const texts = () =>
      frames
        .filter(
          (frame) => frame.from === "agent" && frame.message.params?.update?.sessionUpdate === "agent_message_chunk",
        )
        .map((frame) => frame.message.params.update.content.text);
    const until = async (test: () => boolean) => {
      for (let i = 0; i < 400 && !test(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      assert.ok(test());
    };
    await until(() => texts().length === 3);
    assert.deepEqual(
      frames.filter((frame) => frame.from === "client").map((frame) => frame.message.method),
      ["initialize", "session/attach"],
    );
    await owner.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "stream 2" }] });
    await until(() => texts().length === 5);
    assert.deepEqual(texts(), ["u0", "u1", "u2", "u0", "u1"]);
    owner.close();
    await observing;
    assert.deepEqual(ended.sort(), ["agent", "client"]);
  },
);
