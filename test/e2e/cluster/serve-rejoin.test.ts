/**
 * A participant outlives its own node, over three real `acp serve --cluster` processes (the reference agent, its
 * sessions in the same database) behind a real HAProxy, with a 2 s lease: a session runs on node A (its host
 * connected there directly); a controller attaches over Streamable HTTP through HAProxy, its connection held by B or
 * C. That node is killed (SIGKILL) and the host runs a turn meanwhile. Once another node adopted the controller's
 * connection, it asks node A to take the controller back: the controller gets the updates it missed, then prompts
 * again without attaching again; every numbered update reaches it exactly once, in the host's order, and the
 * participants listing shows it with its role. Then the node running both the session and a controller's connection
 * is killed: the node that adopts the session keeps the controller as departed, and the controller's connection's
 * adopter, once the session is listed live again, asks for it back; the controller prompts the adopted agent.
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { haproxyUnavailable } from "../../../src/node/testing/haproxy.js";
import { postgresUnavailable } from "../../../src/node/testing/postgres-server.js";
import type { TestParticipant } from "../shared/support/participants.js";
import { serveClusterFile } from "./support/serve-cluster-file.js";

const unavailable = postgresUnavailable() ?? haproxyUnavailable();
const LEASE_MS = 2000;
/** From the kill to the controller having the turn it missed: a lease or so to adopt, then one relay round trip. */
const BOUND_MS = 15_000;
// --verbose: the nodes' info lines (adoption, the rejoin) are in a failure's message.
const file = serveClusterFile("acp-rejoin-", unavailable, {
  nodes: 3,
  leaseMs: LEASE_MS,
  haproxy: true,
  extraArgs: ["--verbose"],
});

before(() => file.start());
after(() => file.stop());

async function connect(name: string, url: string): Promise<{ who: TestParticipant; connectionId: string }> {
  const who = await file.participantAt(name, url);
  const row = await file.cluster.pool.query<{ connection_id: string }>(
    "SELECT connection_id FROM acpkit_cluster_connections ORDER BY created_at DESC LIMIT 1",
  );
  return { who, connectionId: row.rows[0]!.connection_id };
}

function prompt(who: TestParticipant, sessionId: string, text: string): Promise<any> {
  return who.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

/** A participant through HAProxy whose connection is held by a node `wanted` accepts (by index). */
async function connectThroughBalancer(
  name: string,
  wanted: (index: number) => boolean,
): Promise<{ who: TestParticipant; index: number }> {
  for (let attempt = 0; attempt < 9; attempt++) {
    const made = await connect(name, `${file.cluster.haproxy!.url}/acp`);
    const index = file.cluster.nodes.indexOf((await file.cluster.ownerOf(made.connectionId))!);
    if (wanted(index)) return { who: made.who, index };
    made.who.close();
    // One request more through the balancer: round-robin would otherwise bring the next initialize back there.
    await (await fetch(`${file.cluster.haproxy!.url}/healthz`)).text();
  }
  throw new Error(`no connection of ${name} through HAProxy landed on the node wanted in 9 attempts`);
}

const seqs = (who: TestParticipant) => who.updates.map((seen) => seen.seq);
const lines = (label: string) => Array.from({ length: 3 }, (_, i) => `${label} ${i + 1}\n`);

test(
  "a controller whose own node is killed goes on through the node that adopts its connection, missing nothing",
  { skip: unavailable, timeout: 120_000 },
  async (t) => {
    let step = "start";
    try {
      step = "the session on node A, a controller through HAProxy on B or C";
      const { who: host } = await connect("host", file.cluster.nodes[0]!.process.url);
      const { sessionId } = await host.request("session/new", { cwd: file.work, mcpServers: [] });
      const { who: controller, index } = await connectThroughBalancer("controller", (at) => at > 0);
      await controller.request("session/attach", { sessionId, historyPolicy: "full" });

      step = "a first turn, seen by both";
      assert.equal((await prompt(host, sessionId, "/stream 3 first")).stopReason, "end_turn");
      await controller.until(() => controller.kind("turn_complete").length === 1, "the first turn's end");
      assert.deepEqual(controller.texts, lines("first"));

      step = "the controller's node killed; the host runs a turn meanwhile";
      const killedAt = performance.now();
      await file.cluster.kill(index);
      assert.equal((await prompt(host, sessionId, "/stream 3 during")).stopReason, "end_turn");

      step = "the missed turn reaches the controller through the adopting node";
      await controller.until(
        () => controller.kind("turn_complete").length === 2,
        "the turn run while its node was dead",
        BOUND_MS,
      );
      const caughtUpMs = Math.round(performance.now() - killedAt);
      assert.ok(caughtUpMs < BOUND_MS, `${caughtUpMs} ms`);
      const adopter = await file.cluster.ownerOf(
        (
          await file.cluster.pool.query<{ connection_id: string }>(
            "SELECT connection_id FROM acpkit_cluster_attachments WHERE session_id = $1 AND connection_id <> " +
              "host_connection LIMIT 1",
            [sessionId],
          )
        ).rows[0]!.connection_id,
      );
      assert.ok(adopter !== undefined && adopter !== file.cluster.nodes[index], "another node holds it now");

      step = "the controller prompts again, without attaching again";
      assert.equal((await prompt(controller, sessionId, "/stream 3 after")).stopReason, "end_turn");
      await host.until(() => host.kind("turn_complete").length === 3, "the third turn's end on the host");
      await controller.until(() => controller.kind("turn_complete").length === 3, "the third turn's end");
      assert.deepEqual(controller.texts, [...lines("first"), ...lines("during"), ...lines("after")]);
      assert.deepEqual(seqs(controller), seqs(host), "the host's numbered updates, each once, in order");
      assert.deepEqual(
        seqs(host),
        seqs(host).map((_, i) => i + 1),
        "no gap, no repeat",
      );
      const listed = controller.notifications.filter((n) => n.method === "_acpkit/session/participants").at(-1)!.params
        .participants as { name: string; role: string }[];
      assert.deepEqual(listed.map((one) => `${one.name}:${one.role}`).sort(), [
        "controller:controller",
        "host:controller",
      ]);
      t.diagnostic(`SIGKILL of the controller's node to the missed turn on the controller: ${caughtUpMs} ms`);
      t.diagnostic(`adopted by ${adopter === file.cluster.nodes[0] ? "the session's node" : "the third node"}`);
      step = "the killed node started again";
      await file.cluster.restart(index);
      await file.cluster.haproxy!.waitForServer(file.cluster.nodes[index]!.name, "UP");
    } catch (error) {
      const detail = `failed at "${step}": ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
      throw new Error(`${detail}\n${file.started?.describeNodes() ?? ""}`, { cause: error });
    }
  },
);

test(
  "the node running both the session and a controller's connection is killed: the session's adopter takes the controller back",
  { skip: unavailable, timeout: 120_000 },
  async (t) => {
    let step = "start";
    try {
      step = "the session and a controller (through HAProxy) on the same node";
      const { who: host } = await connect("host", file.cluster.nodes[2]!.process.url);
      const { sessionId } = await host.request("session/new", { cwd: file.work, mcpServers: [] });
      const { who: controller } = await connectThroughBalancer("controller", (at) => at === 2);
      await controller.request("session/attach", { sessionId, historyPolicy: "full" });
      assert.equal((await prompt(controller, sessionId, "/stream 3 first")).stopReason, "end_turn");
      await controller.until(() => controller.kind("turn_complete").length === 1, "the first turn's end");
      const notices = () => controller.notifications.filter((n) => n.method === "_acpkit/session/participants");
      const before = notices().length;

      step = "that node killed: the session adopted, then the controller taken back";
      const killedAt = performance.now();
      await file.cluster.kill(2);
      await controller.until(() => notices().length > before, "the controller back in the session", BOUND_MS);
      const backMs = Math.round(performance.now() - killedAt);
      const listed = notices().at(-1)!.params.participants as { name: string; role: string }[];
      assert.ok(
        listed.some((one) => `${one.name}:${one.role}` === "controller:controller"),
        JSON.stringify(listed),
      );
      assert.equal(
        controller.notifications.filter((n) => n.method === "_acpkit/session/ended").length,
        0,
        "its attachment did not end",
      );

      step = "the controller prompts the adopted agent, without attaching again";
      assert.equal((await prompt(controller, sessionId, "/stream 3 after")).stopReason, "end_turn");
      await controller.until(() => controller.kind("turn_complete").length === 2, "the second turn's end");
      assert.deepEqual(controller.texts, [...lines("first"), ...lines("after")], "the agent's reload withheld");
      const seen = seqs(controller);
      assert.ok(
        seen.every((seq, i) => i === 0 || seq! > seen[i - 1]!),
        `each update once, in order: ${seen.join(",")}`,
      );
      t.diagnostic(`SIGKILL of the node running both to the controller back in the session: ${backMs} ms`);
      await file.cluster.restart(2);
      await file.cluster.haproxy!.waitForServer(file.cluster.nodes[2]!.name, "UP");
    } catch (error) {
      const detail = `failed at "${step}": ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
      throw new Error(`${detail}\n${file.started?.describeNodes() ?? ""}`, { cause: error });
    }
  },
);
