/**
 * `acp chat --observe ID URL` (a real process, piped) on a live shared session that a controller drives over a
 * WebSocket (`listenAcp` with `sharedSessions`): the observer is not asked the controller's permission request, but its
 * transcript shows it waiting, with its options, and then who answered it and with which option; the agent's message
 * after the answer follows.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { after, before, it } from "node:test";
import { listenAcp, type ListeningAcpServer } from "../../../src/entries/node.js";
import { ACP_MAIN } from "../remote/support/serve-process.js";
import { sharedTestAgent } from "./support/shared-agent.js";
import { acpkitParticipant, type TestParticipant } from "./support/participants.js";

const TOKEN = "chat-observe-token";

let server: ListeningAcpServer;
const open: TestParticipant[] = [];
const children: ChildProcess[] = [];

before(async () => {
  server = await listenAcp({ agent: sharedTestAgent(), token: TOKEN, sharedSessions: true });
});
after(async () => {
  for (const child of children) child.kill("SIGKILL");
  for (const participant of open) participant.close();
  await server.close();
});

async function until(test: () => boolean, what: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the chat wrote:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it("an observing chat shows the controllers' permission request waiting, then who answered it", async () => {
  const controller = await acpkitParticipant(
    "editor",
    { url: server.url, webSocketUrl: server.webSocketUrl, token: TOKEN },
    "websocket",
  );
  open.push(controller);
  const { sessionId } = await controller.request("session/new", { cwd: "/tmp", mcpServers: [] });

  const chat = spawn(process.execPath, [ACP_MAIN, "chat", "--observe", sessionId, server.url, "--token", TOKEN], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  children.push(chat);
  let out = "";
  let err = "";
  chat.stdout!.setEncoding("utf8").on("data", (chunk: string) => void (out += chunk));
  chat.stderr!.setEncoding("utf8").on("data", (chunk: string) => void (err += chunk));
  const output = () => `${out}\n[stderr]\n${err}`;
  const attached = () =>
    server.server
      .sharedSessions()
      .find((session) => session.sessionId === sessionId)
      ?.participants.some((who) => who.role === "observer") === true;
  await until(attached, "the chat to attach as an observer", output);

  let answer!: () => void;
  controller.permissionGate = new Promise((resolve) => (answer = resolve));
  controller.permissionAnswer = "allow";
  const turn = controller.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "permissions 1" }] });
  await controller.until(() => controller.permissionsAsked === 1, "the permission request");
  await until(() => /Permission asked of the controllers: Edit 0/.test(out), "the waiting request in the chat", output);
  assert.match(out, /Waiting for an answer: Allow \/ Reject/);
  assert.doesNotMatch(out, /Permission answered/, "not answered yet");

  answer();
  assert.equal((await turn).stopReason, "end_turn");
  await until(() => /Permission answered by editor: Allow/.test(out), "the answer in the chat", output);
  await until(() => /outcome 0 allow/.test(out), "the agent's message after the answer", output);
  assert.ok(
    out.indexOf("Permission asked of the controllers") < out.indexOf("Permission answered by editor"),
    "asked before answered",
  );
  assert.equal(controller.permissionsAsked, 1, "the observer was never asked, the controller once");
});
