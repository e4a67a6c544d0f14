/**
 * Observers and permission requests on one node, over real sockets (`listenAcp` with `sharedSessions`): a controller
 * on WebSocket is asked; an observer on Streamable HTTP (its `ParticipantsView`) sees the request pending, read-only,
 * then who answered and how; a late observer (`pending_only`, a raw WebSocket) is shown the request still waiting,
 * and its answer to it is refused and not counted: the agent gets the controller's.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { WebSocket } from "ws";
import { listenAcp, type ListeningAcpServer } from "../../../src/entries/node.js";
import { ParticipantsView, type AttachSessionResult } from "../../../src/entries/client-toolkit.js";
import { sharedTestAgent } from "./support/shared-agent.js";
import { acpkitParticipant, type TestParticipant, type Target } from "./support/participants.js";

const TOKEN = "observer-permissions-token";

let server: ListeningAcpServer;
let target: Target;
const open: TestParticipant[] = [];

before(async () => {
  server = await listenAcp({ agent: sharedTestAgent(), token: TOKEN, sharedSessions: true });
  target = { url: server.url, webSocketUrl: server.webSocketUrl, token: TOKEN };
});
after(async () => {
  for (const participant of open) participant.close();
  await server.close();
});

/** A client that writes and reads raw frames (it can send a response nobody asked for). */
async function rawClient() {
  const socket = new WebSocket(target.webSocketUrl, ["acp"], { headers: { Authorization: `Bearer ${TOKEN}` } });
  const frames: Record<string, any>[] = [];
  const waiters: (() => void)[] = [];
  socket.on("message", (data: Buffer) => {
    frames.push(JSON.parse(data.toString()) as Record<string, any>);
    for (const waiter of waiters.splice(0)) waiter();
  });
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  const frame = async (test: (frame: Record<string, any>) => boolean, what: string) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const found = frames.find(test);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`raw observer: timed out waiting for ${what}`);
      await new Promise<void>((resolve) => (waiters.push(resolve), setTimeout(resolve, 200)));
    }
  };
  const send = (message: Record<string, unknown>) => socket.send(JSON.stringify({ jsonrpc: "2.0", ...message }));
  return { frames, frame, send, close: () => socket.close() };
}

it(
  "observers see a pending permission request read-only; an observer's answer is refused",
  { timeout: 60_000 },
  async () => {
    const controller = await acpkitParticipant("controller", target, "websocket");
    const observer = await acpkitParticipant("observer", target, "http");
    open.push(controller, observer);
    const { sessionId } = await controller.request("session/new", { cwd: "/tmp", mcpServers: [] });
    const attached = (await observer.request("session/attach", {
      sessionId,
      role: "observer",
      historyPolicy: "none",
    })) as AttachSessionResult;
    const view = new ParticipantsView(sessionId, attached);
    observer.listeners.push((method, params) => view.apply(method, params));

    let answer!: () => void;
    controller.permissionGate = new Promise((resolve) => (answer = resolve));
    controller.permissionAnswer = "allow";
    const turn = controller.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "permissions 1" }] });
    await controller.until(() => controller.permissionsAsked === 1, "the permission request");
    await observer.until(() => view.pendingPermissions.length === 1, "the pending request in the view");
    const [pending] = view.pendingPermissions;
    assert.equal(pending!.toolCall?.toolCallId, "call-0");
    assert.deepEqual(
      pending!.options?.map((option) => option.optionId),
      ["allow", "reject"],
    );
    assert.equal(observer.permissionsAsked, 0, "the observer is not asked");

    // A late observer: the request is still pending, in the attach answer and as a notification after it.
    const late = await rawClient();
    late.send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await late.frame((frame) => frame.id === 1, "initialize");
    late.send({
      id: 2,
      method: "session/attach",
      params: { sessionId, role: "observer", historyPolicy: "pending_only" },
    });
    const lateAttach = await late.frame((frame) => frame.id === 2, "the attach answer");
    assert.deepEqual(
      lateAttach.result._meta.acpkit.pendingPermissions.map((shown: any) => shown.permissionId),
      [pending!.permissionId],
    );
    const notice = await late.frame((frame) => frame.method === "_acpkit/session/permission_pending", "the notice");
    assert.equal(notice.params.toolCall.toolCallId, "call-0");

    // It answers anyway: refused, and the agent does not get "reject".
    late.send({ id: notice.params.permissionId, result: { outcome: { outcome: "selected", optionId: "reject" } } });
    const refused = await late.frame((frame) => frame.method === "_acpkit/session/refused", "the refusal");
    assert.equal(refused.params.requestId, notice.params.permissionId);
    assert.equal(refused.params.error.code, -32011);
    assert.match(refused.params.error.message, /observes session .* \(read-only\).*not counted/);

    answer();
    assert.equal((await turn).stopReason, "end_turn");
    await observer.until(() => observer.texts.includes("outcome 0 allow"), "the agent's outcome");
    assert.equal(observer.texts.filter((text) => text.startsWith("outcome")).length, 1);
    await observer.until(() => view.lastResolved !== null, "the resolution in the view");
    assert.deepEqual(view.pendingPermissions, []);
    assert.equal(view.lastResolved!.permissionId, pending!.permissionId);
    assert.equal(view.lastResolved!.chosenOptionId, "allow");
    assert.equal(view.lastResolved!.resolvedBy?.name, "controller");
    assert.ok(view.lastResolved!.resolvedAt);
    const lateResolved = await late.frame(
      (frame) => frame.method === "session/update" && frame.params.update.sessionUpdate === "permission_resolved",
      "the resolution",
    );
    assert.equal(lateResolved.params.update._meta.acpkit.permissionId, pending!.permissionId);
    late.close();
  },
);
