/**
 * Shared sessions across real `acp serve --cluster` processes (the reference agent, its sessions in the same
 * database) on one real PostgreSQL: a session opened on node 1 is attached through node 2 by a controller whose
 * prompt runs on node 1's agent, both clients seeing the streamed turn; node 2 lists it as node 1's (`acp sessions`
 * too). Then node 1 is
 * killed (SIGKILL) mid-turn: the controller's prompt, waiting on node 2 for node 1, is answered with an error within
 * the lease bound (never a hang); once node 2 adopted the connection, its attachment is rebuilt there and the
 * controller prompts the adopted agent without attaching again. Node 1 restarted, an observer attaches
 * through it; node 1 killed again, the session (now on node 2) drops that observer within the lease bound, and node 2
 * adopts the observer's connection without loading that session into its new agent, and takes the observer back into
 * the session (as an observer): the next turn reaches its stream.
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { postgresUnavailable } from "../../../src/node/testing/postgres-server.js";
import { acp } from "../wire/support.js";
import type { TestParticipant } from "../shared/support/participants.js";
import { serveClusterFile } from "./support/serve-cluster-file.js";

const unavailable = postgresUnavailable();
const LEASE_MS = 3000;
const file = serveClusterFile("acp-serve-shared-", unavailable, { nodes: 2, leaseMs: LEASE_MS });

before(() => file.start());
after(() => file.stop());

function participant(name: string, node: number): Promise<TestParticipant> {
  return file.participant(name, node);
}

function prompt(who: TestParticipant, sessionId: string, text: string): Promise<any> {
  return who.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

test(
  "acp serve --cluster: attach through node 2 to node 1's session; node 1 killed mid-turn: the prompt fails at once, the attachment goes on through node 2",
  { skip: unavailable, timeout: 120_000 },
  async () => {
    const host = await participant("host", 0);
    const { sessionId } = await host.request("session/new", { cwd: file.work, mcpServers: [] });
    await prompt(host, sessionId, "/stream 3 before");
    const controller = await participant("controller", 1);
    const attached = await controller.request("session/attach", { sessionId, historyPolicy: "full" });
    assert.equal(attached.role, "controller");
    assert.deepEqual(
      controller.texts.filter((text) => text.startsWith("before")),
      ["before 1\n", "before 2\n", "before 3\n"],
    );
    assert.equal((await prompt(controller, sessionId, "/stream 20 part")).stopReason, "end_turn");
    const parts = Array.from({ length: 20 }, (_, i) => `part ${i + 1}\n`);
    await host.until(() => host.texts.filter((text) => text.startsWith("part")).length === 20, "the turn on the host");
    assert.deepEqual(
      host.texts.filter((text) => text.startsWith("part")),
      parts,
    );
    assert.deepEqual(
      controller.texts.filter((text) => text.startsWith("part")),
      parts,
    );

    const listingUrl = `${file.cluster.nodes[1]!.process.url.replace(/\/$/, "")}/sessions`;
    const deadline = Date.now() + 10_000;
    let listed: any;
    while (listed === undefined || listed.participants.length !== 2) {
      assert.ok(Date.now() < deadline, "node 2 lists node 1's session with both participants");
      const response = await fetch(listingUrl, { headers: { Authorization: `Bearer ${file.cluster.token}` } });
      listed = ((await response.json()) as { sessions: any[] }).sessions.find((one) => one.sessionId === sessionId);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(listed.node, file.cluster.nodes[0]!.nodeId);
    const printed = await acp(["sessions", "--token", file.cluster.token, file.cluster.nodes[1]!.process.url]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, new RegExp(`^${sessionId} .*on node ${file.cluster.nodes[0]!.nodeId}$`, "m"));
    assert.match(printed.stdout, /^ {2}controller +controller +http /m);

    // Node 1 dies mid-turn: the controller's prompt waits on node 2 for an answer that cannot come.
    const running = prompt(controller, sessionId, "/slow 60000");
    await controller.until(() => controller.texts.some((text) => text.startsWith("Working for")), "the slow turn");
    const notices = () => controller.notifications.filter((n) => n.method === "_acpkit/session/participants").length;
    const noticesBefore = notices();
    const killedAt = performance.now();
    await file.cluster.kill(0);
    await assert.rejects(running, /went away during the turn/);
    const answeredMs = performance.now() - killedAt;
    assert.ok(answeredMs < 2 * LEASE_MS, `answered ${Math.round(answeredMs)} ms after the kill (lease ${LEASE_MS} ms)`);
    console.log(`the prompt waiting on the killed node was answered ${Math.round(answeredMs)} ms after SIGKILL`);

    // Node 2 adopts the host's connection (its agent reloads the session) and rebuilds the controller's attachment:
    // the controller goes on without attaching again.
    await controller.until(() => notices() > noticesBefore, "the session rebuilt on node 2", 20_000);
    assert.equal(
      controller.notifications.some((n) => n.method === "_acpkit/session/ended"),
      false,
      "the attachment did not end",
    );
    const before = controller.texts.length;
    assert.equal((await prompt(controller, sessionId, "/stream 2 after")).stopReason, "end_turn");
    assert.deepEqual(controller.texts.slice(before), ["after 1\n", "after 2\n"]);

    // The other way round: an observer attached through a node that dies is dropped by the session's node.
    await file.cluster.restart(0);
    const watcher = await participant("watcher", 0);
    await watcher.request("session/attach", { sessionId, role: "observer", historyPolicy: "none" });
    await prompt(controller, sessionId, "/stream 2 seen");
    await watcher.until(() => watcher.texts.length === 2, "the turn, on the observer");
    const killedAgainAt = performance.now();
    await file.cluster.kill(0);
    await controller.until(
      () => controller.kind("client_disconnected").some((seen) => seen.update.client.name === "watcher"),
      "the dead node's observer dropped",
    );
    const droppedMs = performance.now() - killedAgainAt;
    assert.ok(droppedMs < 2 * LEASE_MS, `dropped ${Math.round(droppedMs)} ms after the kill`);
    console.log(`the observer on the killed node was dropped ${Math.round(droppedMs)} ms after SIGKILL`);

    // Node 2 adopts the observer's connection too: its new agent does not load the session it was attached to (the
    // session is another agent's); node 2, which runs the session, takes the observer back (its role kept), and the
    // observer's stream (read from the database: its client was on node 1) carries the next turn.
    const adopted = Date.now() + 20_000;
    let row: { connection_id: string } | undefined;
    while (row === undefined) {
      const found = await file.cluster.pool.query<{ connection_id: string }>(
        `SELECT c.connection_id FROM acpkit_cluster_sessions s
           JOIN acpkit_cluster_connections c ON c.connection_id = s.connection_id
          WHERE s.session_id = $1 AND s.params IS NULL AND c.owner_node = $2 AND c.adoptions > 0`,
        [sessionId, file.cluster.nodes[1]!.nodeId],
      );
      row = found.rows[0];
      assert.ok(row !== undefined || Date.now() < adopted, "the observer's connection adopted by node 2");
      if (row === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await controller.until(
      () =>
        controller.notifications
          .filter((n) => n.method === "_acpkit/session/participants")
          .at(-1)!
          .params.participants.some(
            (one: { name: string; role: string }) => `${one.name}:${one.role}` === "watcher:observer",
          ),
      "the observer back in the session, as an observer",
    );
    await prompt(controller, sessionId, "/stream 2 later");
    const stream = async () =>
      (
        await file.cluster.pool.query<{ body: string }>(
          "SELECT body FROM acpkit_cluster_events WHERE connection_id = $1 AND stream = $2 ORDER BY event_id",
          [row!.connection_id, sessionId],
        )
      ).rows.map((event) => event.body);
    const until = Date.now() + 10_000;
    while (!(await stream()).some((body) => body.includes("later 2"))) {
      assert.ok(Date.now() < until, "the next turn on the adopted observer's stream");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const bodies = await stream();
    assert.ok(!bodies.some((body) => body.includes('"_acpkit/session/ended"')), "its attachment did not end");
    assert.equal(bodies.filter((body) => body.includes("later 1")).length, 1, "the turn once");
    const after = await file.cluster.pool.query<{ live: boolean; end_reason: string | null }>(
      "SELECT ended_at IS NULL AS live, end_reason FROM acpkit_cluster_connections WHERE connection_id = $1",
      [row.connection_id],
    );
    assert.equal(after.rows[0]!.live, true, `the adopted connection lives on (${after.rows[0]!.end_reason})`);
  },
);
