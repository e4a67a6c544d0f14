/**
 * The shared-session scenarios, over real sockets, for any topology: one node, or several cluster nodes where each
 * participant of a scenario connects through the node its place says (`node` modulo the number of nodes; the
 * session's opener on node 0, which then runs its agent). A controller on WebSocket (the official SDK's client) and
 * observers on Streamable HTTP (acpkit's and the official SDK's) see the same turn in the same order; late joiners
 * with each `historyPolicy`; the replay/live seam under a streaming turn; three controllers asked the same
 * permission request 200 times, two answering at once; an observer's prompt and cancel refused; controllers that
 * leave mid-turn (a WebSocket closed, an HTTP connection DELETEd); fs requests routed to the prompting controller;
 * the prompt queue. `sharedSessionScenarios` registers them in a `describe`; nothing runs when this is imported.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { SharedAgentStats } from "./shared-agent.js";
import { acpkitParticipant, officialParticipant, type TestParticipant, type Target } from "./participants.js";

export interface Topology {
  /** The nodes a participant may connect through (the session's opener uses the first). */
  readonly nodes: readonly Target[];
  /** What the agent (the same app on every node) was answered. */
  readonly agent: SharedAgentStats;
}

/** Registers the scenarios under `title`; `topology` is called once the file's `before` has set it up. */
export function sharedSessionScenarios(title: string, topology: () => Topology, skip?: string): void {
  const STEP = { timeout: 60_000, skip };
  const open: TestParticipant[] = [];

  /** The target of node `node` (modulo the number of nodes: on one node, every participant shares it). */
  function at(node: number): Target {
    const nodes = topology().nodes;
    return nodes[node % nodes.length]!;
  }

  async function acpkit(name: string, node: number, profile: "websocket" | "http"): Promise<TestParticipant> {
    const made = await acpkitParticipant(name, at(node), profile);
    open.push(made);
    return made;
  }

  async function official(name: string, node: number, profile: "websocket" | "http" = "websocket") {
    const made = await officialParticipant(name, at(node), profile);
    open.push(made);
    return made;
  }

  describe(title, () => {
    after(() => {
      for (const participant of open) participant.close();
    });

    it(
      "a WebSocket controller (official SDK) and a Streamable HTTP observer see the same turn in the same order",
      STEP,
      async () => {
        const controller = await official("controller", 0);
        const sessionId = await newSession(controller);
        const observer = await acpkit("observer", 1, "http");
        const attached = await observer.request("session/attach", {
          sessionId,
          role: "observer",
          historyPolicy: "full",
        });
        assert.equal(attached.role, "observer");
        assert.equal(attached.connectedClients.length, 1);
        assert.equal(attached.connectedClients[0].role, "controller");
        // The official SDK's client on Streamable HTTP attaches too (its extMethod sends session/attach as it is).
        const officialObserver = await official("official-observer", 2, "http");
        await officialObserver.request("session/attach", { sessionId, role: "observer", historyPolicy: "none" });
        const answer = await prompt(controller, sessionId, "stream 50");
        assert.equal(answer.stopReason, "end_turn");
        await observer.until(() => observer.kind("turn_complete").length === 1, "the turn's end");
        await officialObserver.until(() => officialObserver.texts.length === 50, "the official observer's 50 chunks");
        assert.deepEqual(officialObserver.texts, observer.texts);
        const expected = numbered(50);
        assert.deepEqual(observer.texts, expected);
        assert.deepEqual(controller.texts, expected);
        assert.equal(observer.kind("prompt_received")[0]!.update.sentBy.name, "controller");
        assertContiguous(observer);
        // (The official SDK's client drops the server's own update kinds, which its schema does not know.)
        const chunkSeqs = (who: TestParticipant) => who.kind("agent_message_chunk").map((seen) => seen.seq);
        assert.deepEqual(chunkSeqs(officialObserver), chunkSeqs(observer), "the same numbered updates");
      },
    );

    it(
      "late joiners get the history their historyPolicy asks for, then live updates with no gap or repeat",
      STEP,
      async () => {
        const controller = await acpkit("host", 0, "websocket");
        const sessionId = await newSession(controller);
        await prompt(controller, sessionId, "stream 20");
        const full = await acpkit("full", 1, "http");
        const pending = await acpkit("pending", 2, "websocket");
        const none = await acpkit("none", 1, "http");
        const fullResult = await full.request("session/attach", { sessionId, role: "observer", historyPolicy: "full" });
        const pendingResult = await pending.request("session/attach", { sessionId, historyPolicy: "pending_only" });
        const noneResult = await none.request("session/attach", { sessionId, role: "observer", historyPolicy: "none" });
        // full: the whole turn so far (prompt_received, 20 chunks, turn_complete), numbered from 1.
        assert.equal(fullResult._meta.acpkit.replayed, 22);
        assert.deepEqual(full.texts, numbered(20));
        assertContiguous(full, 1);
        // pending_only and none: nothing of the finished turn.
        assert.equal(pendingResult._meta.acpkit.replayed, 0);
        assert.equal(noneResult._meta.acpkit.replayed, 0);
        assert.equal(pending.updates.length, 0);
        assert.equal(none.updates.length, 0);
        // pending_only: a controller is asked the permission still waiting; full/none observers are not.
        controller.permissionAnswer = "wait";
        pending.permissionAnswer = "wait";
        const turn = prompt(controller, sessionId, "permissions 1");
        await controller.until(() => controller.permissionsOpen === 1, "the permission request");
        await pending.until(() => pending.permissionsOpen === 1, "the permission request, on the pending controller");
        const late = await acpkit("late", 2, "websocket");
        late.permissionAnswer = "allow";
        const lateResult = await late.request("session/attach", { sessionId, historyPolicy: "pending_only" });
        await turn;
        assert.equal(late.permissionsAsked, 1, "pending_only re-issues the waiting permission request");
        assert.equal(late.updates.filter((seen) => seen.seq! <= lateResult._meta.acpkit.throughSeq).length, 0);
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
        // Every participant's live stream continues exactly where its attach result said, and all end alike.
        assertContiguous(full, 1);
        assertContiguous(pending, pendingResult._meta.acpkit.throughSeq + 1);
        assertContiguous(none, noneResult._meta.acpkit.throughSeq + 1);
        assertContiguous(late, lateResult._meta.acpkit.throughSeq + 1);
        const joined = new Map([
          [pending, pendingResult],
          [none, noneResult],
          [late, lateResult],
        ]);
        for (const [participant, result] of joined)
          assert.deepEqual(
            seqs(participant),
            seqs(full).filter((seq) => seq! > result._meta.acpkit.throughSeq),
            `${participant.name}: what the full joiner saw after its attach point`,
          );
        assert.deepEqual(pending.texts, ["outcome 0 allow"]);
        const resolved = none.kind("permission_resolved");
        assert.equal(resolved.length, 1);
        assert.equal(resolved[0]!.update.chosenOptionId, "allow");
        assert.equal(resolved[0]!.update.resolvedBy.name, "late");
        assert.equal(topology().agent.answers(sessionId), 1, "the agent got one answer");
        assert.ok(fullResult.connectedClients.length >= 1);
      },
    );

    it(
      "joiners attaching while a turn streams see every update once: the seam between replay and live",
      STEP,
      async () => {
        const controller = await acpkit("streamer", 0, "websocket");
        const sessionId = await newSession(controller);
        // The agent streams until cancelled: every joiner attaches mid-turn, whatever the machine's speed.
        const turn = prompt(controller, sessionId, "flow");
        await controller.until(() => controller.texts.length > 0, "the turn streaming");
        const joiners: TestParticipant[] = [];
        const replayed: number[] = [];
        for (let i = 0; i < 6; i++) {
          const joiner = await acpkit(`joiner${i}`, 1 + (i % 2), i % 2 ? "http" : "websocket");
          const attached = await joiner.request("session/attach", {
            sessionId,
            role: "observer",
            historyPolicy: "full",
          });
          replayed.push(attached._meta.acpkit.replayed);
          joiners.push(joiner);
        }
        // One more update after the last attach (the replay counts the prompt too), so that every joiner has a seam
        // to cross: the agent sends a batch every 10 ms, and a fast machine attached and cancelled between two.
        await controller.until(() => controller.texts.length >= replayed.at(-1)!, "an update after the last attach");
        await controller.notify("session/cancel", { sessionId });
        assert.equal((await turn).stopReason, "cancelled");
        const count = controller.texts.length;
        assert.ok(
          replayed.every((n) => n > 1 && n < count + 1),
          `every joiner attached mid-turn: replayed ${replayed.join(" ")}, ${count} updates in all`,
        );
        assert.deepEqual(controller.texts, numbered(count));
        for (const joiner of joiners) {
          await joiner.until(() => joiner.kind("turn_complete").length === 1, "turn end");
          assertContiguous(joiner, 1);
          assert.deepEqual(joiner.texts, controller.texts);
        }
      },
    );

    it(
      "two controllers answer the same permission request 200 times: one wins, the others are told and closed",
      STEP,
      async () => {
        // The opener (node 0) does not answer; the official SDK's client (node 1) and acpkit's (node 2) both do.
        const host = await acpkit("host", 0, "websocket");
        const sessionId = await newSession(host);
        host.permissionAnswer = "wait";
        const first = await official("first", 1);
        await first.request("session/attach", { sessionId, historyPolicy: "none" });
        const second = await acpkit("second", 2, "websocket");
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
          assert.ok(won === "allow" || won === "reject", `request ${i}: ${outcomes[i]}`);
          assert.equal(resolved[i]!.update.chosenOptionId, won);
          assert.equal(resolved[i]!.update.resolvedBy.name, won === "allow" ? "first" : "second");
        }
        assert.equal(topology().agent.answers(sessionId), 200, "the agent got one answer per request");
        assert.equal(topology().agent.duplicateAnswers, 0);
        assert.equal(first.permissionsAsked, 200);
        assert.equal(second.permissionsAsked, 200);
        assert.equal(host.permissionsAsked, 200);
        // The controller that did not answer is not left waiting: each of its copies is withdrawn.
        await host.until(() => host.permissionsWithdrawn === 200 && host.permissionsOpen === 0, "200 withdrawals");
        assert.equal(second.permissionsOpen, 0);
        second.permissionAnswer = "wait";
        await prompt(first, sessionId, "permissions 20");
        await second.until(() => second.permissionsWithdrawn === 20 && second.permissionsOpen === 0, "20 withdrawals");
        await host.until(() => host.permissionsWithdrawn === 220 && host.permissionsOpen === 0, "220 withdrawals");
        assert.equal(topology().agent.answers(sessionId), 220);
      },
    );

    it("an observer's prompt and cancel are refused; the turn goes on", STEP, async () => {
      const controller = await acpkit("owner", 0, "websocket");
      const sessionId = await newSession(controller);
      const observer = await acpkit("watcher", 1, "http");
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
      await observer.until(
        () => observer.notifications.some((note) => note.method === "_acpkit/session/refused"),
        "the refused cancel",
      );
      const refused = observer.notifications.find((note) => note.method === "_acpkit/session/refused");
      assert.equal(refused?.params.method, "session/cancel");
      await assert.rejects(observer.request("_acpkit/session/share", { sessionId }), /only a controller/);
    });

    it("a controller that disconnects mid-turn leaves the turn and the others running", STEP, async () => {
      const host = await acpkit("leaving", 0, "websocket");
      const sessionId = await newSession(host);
      const staying = await official("staying", 1);
      await staying.request("session/attach", { sessionId });
      const observer = await acpkit("seeing", 2, "http");
      await observer.request("session/attach", { sessionId, role: "observer" });
      void prompt(host, sessionId, "paced 30 10").catch(() => {});
      await observer.until(() => observer.texts.length >= 5, "the turn running");
      host.close();
      await observer.until(() => observer.kind("turn_complete").length === 1, "the turn's end");
      await staying.until(() => staying.texts.length === 30, "the turn's updates on the other controller");
      assert.deepEqual(observer.texts, numbered(30));
      assert.deepEqual(staying.texts, numbered(30));
      // The turn may end before the socket's close is seen (a short turn under load): the departure is waited for.
      await observer.until(() => observer.kind("client_disconnected").length === 1, "the departure");
      const gone = observer.kind("client_disconnected");
      assert.equal(gone[0]?.update.client.name, "leaving");
      // The session lives on with the remaining controller: its prompt runs, and fs requests go to it.
      const answer = await prompt(staying, sessionId, "read /notes.txt");
      assert.equal(answer.stopReason, "end_turn");
      assert.ok(staying.texts.includes("read staying:/notes.txt"));
      assertContiguous(observer, 1);
    });

    it(
      "a controller on Streamable HTTP that prompted leaves mid-turn (its connection DELETEd): the turn goes on",
      STEP,
      async () => {
        const host = await acpkit("opener", 0, "websocket");
        const sessionId = await newSession(host);
        const leaving = await acpkit("deleted", 1, "http");
        await leaving.request("session/attach", { sessionId, historyPolicy: "none" });
        const observer = await acpkit("onlooker", 2, "http");
        await observer.request("session/attach", { sessionId, role: "observer", historyPolicy: "none" });
        void prompt(leaving, sessionId, "paced 30 10").catch(() => {});
        await observer.until(() => observer.texts.length >= 5, "the turn running");
        leaving.close();
        await observer.until(() => observer.kind("turn_complete").length === 1, "the turn's end");
        await host.until(() => host.texts.length === 30, "the turn's updates on the opener");
        assert.deepEqual(observer.texts, numbered(30));
        assert.deepEqual(host.texts, numbered(30));
        await observer.until(() => observer.kind("client_disconnected").length === 1, "the departure");
        assert.equal(observer.kind("client_disconnected")[0]!.update.client.name, "deleted");
        // Control stays with the opener: its next prompt runs, and its fs request is asked of it.
        assert.equal((await prompt(host, sessionId, "read /after.txt")).stopReason, "end_turn");
        assert.ok(host.texts.includes("read opener:/after.txt"));
        await observer.until(() => observer.kind("turn_complete").length === 2, "the next turn's end");
        assertContiguous(observer);
      },
    );

    it("a controller that leaves while asked for a permission: another answers, the turn ends", STEP, async () => {
      const leaving = await acpkit("asked-and-gone", 0, "websocket");
      const sessionId = await newSession(leaving);
      const staying = await acpkit("asked-and-here", 1, "http");
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
        const host = await acpkit("fs-host", 0, "websocket");
        const sessionId = await newSession(host);
        const asker = await acpkit("fs-asker", 1, "websocket");
        await asker.request("session/attach", { sessionId, historyPolicy: "none" });
        const watcher = await acpkit("fs-watcher", 2, "http");
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

    it(
      "a controller's share token lets a guest observe through another node, and nothing more; every node lists the session",
      STEP,
      async () => {
        const host = await acpkit("sharer", 0, "websocket");
        const sessionId = await newSession(host);
        await prompt(host, sessionId, "stream 3");
        const { token } = await host.request("_acpkit/session/share", { sessionId });
        assert.match(token, /^acpshare_/);
        const guest = await acpkitParticipant("guest", { ...at(1), token }, "http", token);
        open.push(guest);
        await assert.rejects(guest.request("session/attach", { sessionId }), /observe only/);
        await guest.request("session/attach", { sessionId, role: "observer", historyPolicy: "full" });
        assert.deepEqual(guest.texts, numbered(3));
        await assert.rejects(prompt(guest, sessionId, "stream 1"), /read-only/);
        await prompt(host, sessionId, "stream 2");
        await guest.until(() => guest.texts.length === 5, "the next turn, on the guest");
        assertContiguous(guest, 1);
        for (let node = 0; node < 3; node++) {
          const listed = await listedOn(at(node), sessionId, (one) => one.participants.length === 2);
          assert.deepEqual(listed.participants.map((one: any) => one.role).sort(), ["controller", "observer"]);
        }
        assert.equal((await listing(at(2), token)).status, 403, "a share token cannot list sessions");
      },
    );

    it("prompts from two controllers queue: one turn at a time, in order, visible to all", STEP, async () => {
      const a = await acpkit("a", 0, "websocket");
      const sessionId = await newSession(a);
      const b = await acpkit("b", 1, "http");
      await b.request("session/attach", { sessionId, historyPolicy: "none" });
      // b prompts once a's turn runs (a turn of 1.5 s: across nodes, b's prompt is relayed through the database, and
      // under load that took longer than a short turn, which then ended before b's prompt could wait for it).
      const first = prompt(a, sessionId, "paced 5 300");
      await b.until(() => b.kind("prompt_received").length === 1, "a's turn under way");
      const turns = await Promise.all([first, prompt(b, sessionId, "stream 5")]);
      assert.deepEqual(
        turns.map((turn) => turn.stopReason),
        ["end_turn", "end_turn"],
      );
      const received = b.kind("prompt_received").map((seen) => seen.update.sentBy.name);
      assert.deepEqual(received, ["a", "b"]);
      assert.deepEqual(b.texts, [...numbered(5), ...numbered(5)]);
      const queues = b.notifications.filter((note) => note.method === "_acpkit/session/queue");
      assert.ok(
        queues.some((note) => note.params.queued.length === 1),
        "b saw its prompt waiting",
      );
    });
  });
}

function listing(target: Target, token = target.token): Promise<Response> {
  return fetch(`${target.url.replace(/\/$/, "")}/sessions`, { headers: { Authorization: `Bearer ${token}` } });
}

/** Polls a node's listing until `test` holds for the session (a cluster's nodes refresh it shortly after a change). */
async function listedOn(target: Target, sessionId: string, test: (session: any) => boolean): Promise<any> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await listing(target);
    assert.equal(response.status, 200);
    const { sessions } = (await response.json()) as { sessions: any[] };
    const found = sessions.filter((one) => one.sessionId === sessionId);
    assert.ok(found.length <= 1, `${target.url} lists ${sessionId} once`);
    if (found[0] !== undefined && test(found[0])) return found[0];
    assert.ok(
      Date.now() < deadline,
      `${target.url} did not list ${sessionId} as expected: ${JSON.stringify(sessions)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function newSession(participant: TestParticipant): Promise<string> {
  const { sessionId } = await participant.request("session/new", { cwd: "/tmp", mcpServers: [] });
  return sessionId;
}

function prompt(participant: TestParticipant, sessionId: string, text: string): Promise<any> {
  return participant.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

/** `u0`..`u{count-1}`: the texts of the test agent's numbered updates. */
function numbered(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `u${i}`);
}

const seqs = (participant: TestParticipant) => participant.updates.map((seen) => seen.seq);

/** The seqs a participant saw are consecutive (no gap, no repeat) from its first one. */
function assertContiguous(participant: TestParticipant, from?: number): void {
  const seen = seqs(participant);
  assert.ok(
    seen.every((seq) => typeof seq === "number"),
    `${participant.name}: every update is numbered`,
  );
  const start = from ?? (seen[0] as number);
  assert.deepEqual(
    seen,
    seen.map((_, i) => start + i),
    `${participant.name}: updates ${start}.. with no gap or repeat`,
  );
}
