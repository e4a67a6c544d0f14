/**
 * Shared sessions on one node, over real sockets (`listenAcp` with `sharedSessions`): a controller on WebSocket (the
 * official SDK's client) and an observer on Streamable HTTP (acpkit's) on one live session; late joiners with each
 * `historyPolicy`; the replay/live seam under a streaming turn; two controllers answering the same permission
 * request 200 times; an observer's prompt and cancel refused; a controller that disconnects mid-turn.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { listenAcp, type ListeningAcpServer } from "../../../src/entries/node.js";
import { sharedTestAgent } from "./support/shared-agent.js";
import { acpkitParticipant, officialParticipant, type TestParticipant, type Target } from "./support/participants.js";

const STEP = { timeout: 60_000 };
const TOKEN = "shared-test-token";

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

function track<T extends TestParticipant>(participant: T): T {
  open.push(participant);
  return participant;
}

async function newSession(participant: TestParticipant): Promise<string> {
  const { sessionId } = await participant.request("session/new", { cwd: "/tmp", mcpServers: [] });
  return sessionId;
}

function prompt(participant: TestParticipant, sessionId: string, text: string): Promise<any> {
  return participant.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

/** The seqs a participant saw are consecutive (no gap, no repeat) from its first one. */
function assertContiguous(participant: TestParticipant, from?: number): void {
  const seqs = participant.updates.map((seen) => seen.seq);
  assert.ok(
    seqs.every((seq) => typeof seq === "number"),
    `${participant.name}: every update is numbered`,
  );
  const start = from ?? (seqs[0] as number);
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => start + i),
    `${participant.name}: updates ${start}.. with no gap or repeat`,
  );
}

describe("shared sessions on one node", () => {
  it(
    "a WebSocket controller (official SDK) and a Streamable HTTP observer see the same turn in the same order",
    STEP,
    async () => {
      const controller = track(await officialParticipant("controller", target));
      const sessionId = await newSession(controller);
      const observer = track(await acpkitParticipant("observer", target, "http"));
      const attached = await observer.request("session/attach", { sessionId, role: "observer", historyPolicy: "full" });
      assert.equal(attached.role, "observer");
      assert.equal(attached.connectedClients.length, 1);
      assert.equal(attached.connectedClients[0].role, "controller");
      // The official SDK's client on Streamable HTTP attaches too (its extMethod sends session/attach as it is).
      const official = track(await officialParticipant("official-observer", target, "http"));
      await official.request("session/attach", { sessionId, role: "observer", historyPolicy: "none" });
      const answer = await prompt(controller, sessionId, "stream 50");
      assert.equal(answer.stopReason, "end_turn");
      await observer.until(() => observer.kind("turn_complete").length === 1, "the turn's end");
      await official.until(() => official.texts.length === 50, "the official observer's 50 chunks");
      assert.deepEqual(official.texts, observer.texts);
      const expected = Array.from({ length: 50 }, (_, i) => `u${i}`);
      assert.deepEqual(observer.texts, expected);
      assert.deepEqual(controller.texts, expected);
      assert.equal(observer.kind("prompt_received")[0]!.update.sentBy.name, "controller");
      assertContiguous(observer);
    },
  );

  it(
    "late joiners get the history their historyPolicy asks for, then live updates with no gap or repeat",
    STEP,
    async () => {
      const controller = track(await acpkitParticipant("host", target, "websocket"));
      const sessionId = await newSession(controller);
      await prompt(controller, sessionId, "stream 20");
      const full = track(await acpkitParticipant("full", target, "http"));
      const pending = track(await acpkitParticipant("pending", target, "websocket"));
      const none = track(await acpkitParticipant("none", target, "http"));
      const fullResult = await full.request("session/attach", { sessionId, role: "observer", historyPolicy: "full" });
      const pendingResult = await pending.request("session/attach", { sessionId, historyPolicy: "pending_only" });
      const noneResult = await none.request("session/attach", { sessionId, role: "observer", historyPolicy: "none" });
      // full: the whole turn so far (prompt_received, 20 chunks, turn_complete), numbered from 1.
      assert.equal(fullResult._meta.acpkit.replayed, 22);
      assert.deepEqual(
        full.texts,
        Array.from({ length: 20 }, (_, i) => `u${i}`),
      );
      assertContiguous(full, 1);
      assert.equal(pending.updates.length, 0);
      assert.equal(none.updates.length, 0);
      // pending_only: a controller is asked the permission still waiting; full/none observers are not.
      controller.permissionAnswer = "wait";
      pending.permissionAnswer = "wait";
      const turn = prompt(controller, sessionId, "permissions 1");
      await controller.until(() => controller.permissionsOpen === 1, "the permission request");
      const late = track(await acpkitParticipant("late", target, "websocket"));
      late.permissionAnswer = "allow";
      await late.request("session/attach", { sessionId, historyPolicy: "pending_only" });
      await turn;
      assert.equal(late.permissionsAsked, 1, "pending_only re-issues the waiting permission request");
      assert.equal(late.updates.filter((seen) => seen.seq! <= noneResult._meta.acpkit.throughSeq).length, 0);
      await controller.until(() => controller.permissionsOpen === 0, "the host's copy closed");
      await pending.until(() => pending.permissionsOpen === 0, "the other controller's copy closed");
      assert.equal(controller.permissionsWithdrawn, 1);
      assert.equal(pending.permissionsWithdrawn, 1);
      assert.equal(full.permissionsAsked + none.permissionsAsked, 0, "observers are never asked");
      for (const participant of [full, pending, none, late])
        await participant.until(
          () => participant.kind("turn_complete").length >= 1 + (participant === full ? 1 : 0),
          "turn end",
        );
      // Every participant's live stream continues exactly where its attach result said.
      assertContiguous(full, 1);
      assertContiguous(pending, pendingResult._meta.acpkit.throughSeq + 1);
      assertContiguous(none, noneResult._meta.acpkit.throughSeq + 1);
      const resolved = none.kind("permission_resolved");
      assert.equal(resolved.length, 1);
      assert.equal(resolved[0]!.update.chosenOptionId, "allow");
      assert.equal(resolved[0]!.update.resolvedBy.name, "late");
      assert.ok(fullResult.connectedClients.length >= 1);
    },
  );

  it(
    "joiners attaching while a turn streams see every update once: the seam between replay and live",
    STEP,
    async () => {
      const controller = track(await acpkitParticipant("streamer", target, "websocket"));
      const sessionId = await newSession(controller);
      const turn = prompt(controller, sessionId, "stream 3000");
      const joiners: TestParticipant[] = [];
      for (let i = 0; i < 6; i++) {
        const joiner = track(await acpkitParticipant(`joiner${i}`, target, i % 2 ? "http" : "websocket"));
        await joiner.request("session/attach", { sessionId, role: "observer", historyPolicy: "full" });
        joiners.push(joiner);
      }
      await turn;
      for (const joiner of joiners) {
        await joiner.until(() => joiner.kind("turn_complete").length === 1, "turn end");
        assertContiguous(joiner, 1);
        assert.deepEqual(
          joiner.texts,
          Array.from({ length: 3000 }, (_, i) => `u${i}`),
        );
      }
    },
  );

  it(
    "two controllers answer the same permission request 200 times: one wins, the other is told and closed",
    STEP,
    async () => {
      const first = track(await officialParticipant("first", target));
      const sessionId = await newSession(first);
      const second = track(await acpkitParticipant("second", target, "websocket"));
      await second.request("session/attach", { sessionId, historyPolicy: "none" });
      first.permissionAnswer = "allow";
      second.permissionAnswer = "reject";
      const answer = await prompt(first, sessionId, "permissions 200");
      assert.equal(answer.stopReason, "end_turn");
      await second.until(() => second.kind("turn_complete").length === 1, "turn end");
      const outcomes = second.texts.filter((text) => text.startsWith("outcome "));
      assert.equal(outcomes.length, 200);
      const resolved = second.kind("permission_resolved");
      assert.equal(resolved.length, 200, "every request is resolved exactly once");
      for (let i = 0; i < 200; i++) {
        const won = outcomes[i]!.split(" ")[2];
        assert.ok(won === "allow" || won === "reject");
        assert.equal(resolved[i]!.update.chosenOptionId, won);
        assert.equal(resolved[i]!.update.resolvedBy.name, won === "allow" ? "first" : "second");
      }
      assert.equal(first.permissionsAsked, 200);
      assert.equal(second.permissionsAsked, 200);
      assert.equal(second.permissionsOpen, 0);
      // A controller that does not answer is not left waiting: its copy is withdrawn when the other one answers.
      second.permissionAnswer = "wait";
      await prompt(first, sessionId, "permissions 20");
      await second.until(() => second.permissionsWithdrawn === 20 && second.permissionsOpen === 0, "20 withdrawals");
    },
  );

  it("an observer's prompt and cancel are refused; the turn goes on", STEP, async () => {
    const controller = track(await acpkitParticipant("owner", target, "websocket"));
    const sessionId = await newSession(controller);
    const observer = track(await acpkitParticipant("watcher", target, "http"));
    await observer.request("session/attach", { sessionId, _meta: { acpkit: { role: "observer" } } });
    await assert.rejects(prompt(observer, sessionId, "stream 1"), (error: any) => {
      assert.equal(error.code, -32011);
      assert.match(error.message, /observes session .*\(read-only\), so session\/prompt is refused/);
      return true;
    });
    const turn = prompt(controller, sessionId, "paced 10 20");
    await observer.until(() => observer.texts.length >= 2, "the turn running");
    await observer.notify("session/cancel", { sessionId });
    await assert.rejects(observer.request("session/set_mode", { sessionId, modeId: "x" }), /read-only/);
    const answer = await turn;
    assert.equal(answer.stopReason, "end_turn", "the observer's cancel did not reach the agent");
    const refused = observer.notifications.find((note) => note.method === "_acpkit/session/refused");
    assert.equal(refused?.params.method, "session/cancel");
    await assert.rejects(observer.request("_acpkit/session/share", { sessionId }), /only a controller/);
  });

  it("a controller that disconnects mid-turn leaves the turn and the others running", STEP, async () => {
    const host = track(await acpkitParticipant("leaving", target, "websocket"));
    const sessionId = await newSession(host);
    const staying = track(await officialParticipant("staying", target));
    await staying.request("session/attach", { sessionId });
    const observer = track(await acpkitParticipant("seeing", target, "http"));
    await observer.request("session/attach", { sessionId, role: "observer" });
    void prompt(host, sessionId, "paced 30 10").catch(() => {});
    await observer.until(() => observer.texts.length >= 5, "the turn running");
    host.close();
    await observer.until(() => observer.kind("turn_complete").length === 1, "the turn's end");
    assert.deepEqual(
      observer.texts,
      Array.from({ length: 30 }, (_, i) => `u${i}`),
    );
    const gone = observer.kind("client_disconnected");
    assert.equal(gone[0]?.update.client.name, "leaving");
    // The session lives on with the remaining controller: its prompt runs, and fs requests go to it.
    const answer = await prompt(staying, sessionId, "read /notes.txt");
    assert.equal(answer.stopReason, "end_turn");
    assert.ok(staying.texts.includes("read staying:/notes.txt"));
    assertContiguous(observer, 1);
  });

  it("a controller that leaves while asked for a permission: another answers, the turn ends", STEP, async () => {
    const leaving = track(await acpkitParticipant("asked-and-gone", target, "websocket"));
    const sessionId = await newSession(leaving);
    const staying = track(await acpkitParticipant("asked-and-here", target, "http"));
    await staying.request("session/attach", { sessionId, historyPolicy: "none" });
    leaving.permissionAnswer = "wait";
    let release!: () => void;
    staying.permissionGate = new Promise<void>((resolve) => (release = resolve));
    staying.permissionAnswer = "reject";
    const turn = prompt(staying, sessionId, "permissions 1");
    await leaving.until(() => leaving.permissionsOpen === 1, "the leaving controller asked");
    await staying.until(() => staying.permissionsOpen === 1, "the staying controller asked");
    leaving.close();
    await staying.until(() => staying.kind("client_disconnected").length === 1, "the other one gone");
    release();
    const answer = await turn;
    assert.equal(answer.stopReason, "end_turn");
    assert.ok(staying.texts.includes("outcome 0 reject"));
    assert.equal(staying.kind("permission_resolved")[0]?.update.resolvedBy.name, "asked-and-here");
  });

  it(
    "file reads go to the controller whose prompt runs; if it leaves before answering, the agent is told at once",
    STEP,
    async () => {
      const host = track(await acpkitParticipant("fs-host", target, "websocket"));
      const sessionId = await newSession(host);
      const asker = track(await acpkitParticipant("fs-asker", target, "websocket"));
      await asker.request("session/attach", { sessionId, historyPolicy: "none" });
      const watcher = track(await acpkitParticipant("fs-watcher", target, "http"));
      await watcher.request("session/attach", { sessionId, role: "observer", historyPolicy: "none" });
      await prompt(asker, sessionId, "read /notes.txt");
      assert.equal(host.reads, 0, "the host is not asked for the asker's turn");
      assert.ok(asker.texts.includes("read fs-asker:/notes.txt"));
      asker.readGate = new Promise<void>(() => {});
      void prompt(asker, sessionId, "read /never.txt").catch(() => {});
      await asker.until(() => asker.reads === 2, "the second read asked");
      asker.close();
      await watcher.until(() => watcher.texts.some((text) => text.startsWith("read failed")), "the agent told");
      const failed = watcher.texts.find((text) => text.startsWith("read failed"))!;
      assert.match(failed, /the client asked \(.*\) left session/);
      assert.equal(host.reads, 0);
    },
  );

  it("prompts from two controllers queue: one turn at a time, in order, visible to all", STEP, async () => {
    const a = track(await acpkitParticipant("a", target, "websocket"));
    const sessionId = await newSession(a);
    const b = track(await acpkitParticipant("b", target, "http"));
    await b.request("session/attach", { sessionId, historyPolicy: "none" });
    const turns = await Promise.all([prompt(a, sessionId, "paced 5 5"), prompt(b, sessionId, "stream 5")]);
    assert.deepEqual(
      turns.map((turn) => turn.stopReason),
      ["end_turn", "end_turn"],
    );
    const received = b.kind("prompt_received").map((seen) => seen.update.sentBy.name);
    assert.deepEqual(received, ["a", "b"]);
    assert.deepEqual(b.texts, [
      ...Array.from({ length: 5 }, (_, i) => `u${i}`),
      ...Array.from({ length: 5 }, (_, i) => `u${i}`),
    ]);
    const queues = b.notifications.filter((note) => note.method === "_acpkit/session/queue");
    assert.ok(
      queues.some((note) => note.params.queued.length === 1),
      "b saw its prompt waiting",
    );
  });
});
