/**
 * Shared-session attachments survive the death of the session's node, over three real `acp serve --cluster`
 * processes (the reference agent, its sessions in the same database) on one real PostgreSQL, with a 2 s lease: a
 * session opened on node A over Streamable HTTP, a controller attached through node B on a WebSocket and an observer
 * through node C over Streamable HTTP see a first turn in the same order; node A is killed (SIGKILL); once node B or
 * C adopted the session's connection (its agent reloads the session, the replay withheld), the controller prompts
 * again without having attached again, and both it and the observer see the new turn live, the updates' numbers
 * running on from the first turn's with no gap and no repeat; a permission request raised after the adoption reaches
 * the controller, its outcome the observer. Node A dies mid-turn: the controller's prompt fails with "went away
 * during the turn".
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { postgresUnavailable } from "../../../src/node/testing/postgres-server.js";
import type { TestParticipant } from "../shared/support/participants.js";
import { serveClusterFile } from "./support/serve-cluster-file.js";

const unavailable = postgresUnavailable();
const LEASE_MS = 2000;
// --verbose: the nodes' info lines (adoption, rebuilt attachments) are in a failure's message.
const file = serveClusterFile("acp-adopt-attach-", unavailable, {
  nodes: 3,
  leaseMs: LEASE_MS,
  extraArgs: process.env.REMOTE_VERBOSE ? [] : ["--verbose"],
});

before(() => file.start());
after(() => file.stop());

function participant(name: string, node: number, profile: "http" | "websocket"): Promise<TestParticipant> {
  return file.participant(name, node, profile);
}

function prompt(who: TestParticipant, sessionId: string, text: string): Promise<any> {
  return who.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

const seqs = (who: TestParticipant) => who.updates.map((seen) => seen.seq);
const participantsNotices = (who: TestParticipant) =>
  who.notifications.filter((n) => n.method === "_acpkit/session/participants").length;

/** What a participant saw last, for a failure's message. */
function describeParticipant(who: TestParticipant): string {
  const updates = who.updates.slice(-8).map((seen) => `${seen.seq}:${seen.update.sessionUpdate}`);
  const notes = who.notifications
    .filter((n) => n.method !== "session/update")
    .slice(-5)
    .map((n) => `${n.method} ${JSON.stringify(n.params).slice(0, 300)}`);
  return (
    `--- ${who.name}: ${who.updates.length} updates (last: ${updates.join(" ")}), ` +
    `permissions asked ${who.permissionsAsked}; last notifications:\n${notes.join("\n")}`
  );
}

/**
 * Runs the test's steps; a failure says at which step, with what each participant saw and each node's stderr tail
 * (a failure of this three-process test is otherwise hard to explain after the fact).
 */
async function explained(
  participants: () => TestParticipant[],
  steps: (step: (name: string) => void) => Promise<void>,
): Promise<void> {
  let current = "start";
  const startedAt = performance.now();
  let stepAt = startedAt;
  try {
    await steps((name) => {
      current = name;
      stepAt = performance.now();
    });
  } catch (error) {
    const at = `${Math.round((performance.now() - startedAt) / 1000)} s in, ${Math.round((performance.now() - stepAt) / 1000)} s into the step`;
    const detail = [
      `failed at step "${current}" (${at}): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      ...participants().map(describeParticipant),
      file.started?.describeNodes() ?? "(no cluster)",
    ].join("\n");
    throw new Error(detail, { cause: error });
  }
}

test(
  "three nodes: the session's node killed, the controller (B, WebSocket) and the observer (C, HTTP) go on through the adopting node",
  { skip: unavailable, timeout: 90_000 },
  () =>
    explained(
      () => file.open,
      async (step) => {
        step("attach");
        const host = await participant("host", 0, "http");
        const { sessionId } = await host.request("session/new", { cwd: file.work, mcpServers: [] });
        const controller = await participant("controller", 1, "websocket");
        await controller.request("session/attach", { sessionId, historyPolicy: "full" });
        const observer = await participant("observer", 2, "http");
        await observer.request("session/attach", { sessionId, role: "observer", historyPolicy: "full" });

        step("first turn");
        assert.equal((await prompt(controller, sessionId, "/stream 5 first")).stopReason, "end_turn");
        const first = Array.from({ length: 5 }, (_, i) => `first ${i + 1}\n`);
        for (const who of [controller, observer, host])
          await who.until(() => who.kind("turn_complete").length === 1, "the first turn's end");
        assert.deepEqual(controller.texts, first);
        assert.deepEqual(observer.texts, first);
        assert.deepEqual(seqs(observer), seqs(controller), "the same numbered updates, in the same order");

        step("the slow turn");
        // Node A dies mid-turn: the controller's prompt fails with an error that says so (never a hang).
        const dying = prompt(controller, sessionId, "/slow 60000");
        await observer.until(() => observer.texts.some((text) => text.startsWith("Working for")), "the slow turn");
        await controller.until(() => controller.texts.some((text) => text.startsWith("Working for")), "the slow turn");
        const noticesBefore = [participantsNotices(controller), participantsNotices(observer)];
        const lastBefore = seqs(controller).at(-1)!;
        step("node A killed: the running prompt fails");
        const killedAt = performance.now();
        await file.cluster.kill(0);
        await assert.rejects(dying, /went away during the turn/);
        const failedMs = performance.now() - killedAt;
        step("the rebuilt session");
        // The adopting node rebuilds the session and tells its participants who is attached.
        await controller.until(
          () => participantsNotices(controller) > noticesBefore[0]!,
          "the rebuilt session",
          30_000,
        );
        await observer.until(() => participantsNotices(observer) > noticesBefore[1]!, "the rebuilt session", 30_000);
        const rebuiltMs = performance.now() - killedAt;
        const adopter = await file.cluster.ownerOf(
          (
            await file.cluster.pool.query<{ host_connection: string }>(
              "SELECT host_connection FROM acpkit_cluster_attachments WHERE session_id = $1 LIMIT 1",
              [sessionId],
            )
          ).rows[0]!.host_connection,
        );
        assert.ok(adopter !== undefined && adopter !== file.cluster.nodes[0], "node B or C runs the session now");
        const participants = controller.notifications.filter((n) => n.method === "_acpkit/session/participants").at(-1)!
          .params.participants as { name: string; role: string }[];
        assert.deepEqual(participants.map((one) => `${one.name}:${one.role}`).sort(), [
          "controller:controller",
          "host:controller",
          "observer:observer",
        ]);

        step("the turn after the adoption");
        // The controller prompts again, without attaching again; both see the turn live, numbered on.
        const running = prompt(controller, sessionId, "/stream 5 second");
        await observer.until(() => observer.texts.length > 5, "the new turn's first update on the observer");
        const liveMs = performance.now() - killedAt;
        assert.equal((await running).stopReason, "end_turn");
        const second = Array.from({ length: 5 }, (_, i) => `second ${i + 1}\n`);
        for (const who of [controller, observer])
          await who.until(
            () => who.kind("turn_complete").length === 2,
            "the second turn's end (the dead one has none)",
          );
        const slow = controller.texts.filter((text) => text.startsWith("Working for"));
        assert.equal(slow.length, 1);
        assert.deepEqual(
          controller.texts,
          [...first, ...slow, ...second],
          "the agent's replay of the session was withheld",
        );
        assert.deepEqual(observer.texts, controller.texts);
        assert.deepEqual(seqs(observer), seqs(controller));
        const all = seqs(controller);
        assert.equal(all[0], 1);
        assert.deepEqual(
          all,
          all.map((_, i) => i + 1),
          "no gap, no repeat",
        );
        // Numbering runs on after the kill (the reloaded agent's own announcements, e.g. its commands, come live first).
        assert.ok(controller.kind("prompt_received").at(-1)!.seq! > lastBefore);
        const promptIds = controller.kind("prompt_received").map((seen) => seen.update._meta.acpkit.promptId);
        assert.equal(new Set(promptIds).size, promptIds.length, `prompt ids stay unique: ${promptIds.join(" ")}`);

        step("the permission turn");
        // A permission request raised after the adoption reaches the controller (not the observer).
        controller.permissionAnswer = "allow_once";
        assert.equal((await prompt(controller, sessionId, "/write adopted.txt hello")).stopReason, "end_turn");
        assert.equal(controller.permissionsAsked, 1);
        assert.equal(observer.permissionsAsked, 0);
        await observer.until(() => observer.kind("permission_resolved").length === 1, "the outcome on the observer");
        assert.equal(observer.kind("permission_resolved")[0]!.update.resolvedBy.name, "controller");
        // The observer, on another node than the session's, was shown the request read-only, then its resolution.
        const shown = observer.notifications.filter((n) => n.method === "_acpkit/session/permission_pending");
        assert.equal(shown.length, 1);
        assert.equal(
          observer.kind("permission_resolved")[0]!.update._meta.acpkit.permissionId,
          shown[0]!.params.permissionId,
        );
        for (const who of [controller, observer])
          await who.until(() => who.kind("turn_complete").length === 3, "the permission turn's end");
        assert.deepEqual(seqs(observer), seqs(controller));
        console.log(
          `SIGKILL to the failed prompt: ${Math.round(failedMs)} ms; to the rebuilt session's notice: ` +
            `${Math.round(rebuiltMs)} ms; to the next turn's first update on the observer: ${Math.round(liveMs)} ms ` +
            `(lease ${LEASE_MS} ms; adopted by ${adopter!.name})`,
        );
      },
    ),
);
