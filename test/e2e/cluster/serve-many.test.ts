/**
 * Many connections over three `acp serve --cluster` nodes behind HAProxy, prompting at once, one node killed
 * (SIGKILL) midway: every turn either completes, its updates received exactly once and in order, or fails with the
 * error that says its node went away; each session's history in the database (the reference agents' PostgreSQL
 * session store) holds every completed turn's updates exactly once, in order, as the client received them, and a
 * failed turn's at most once each, the client's share first; every connection works afterwards; the lease rows never
 * show a connection moving more than once; the process lists (sampled from /proc) never show one connection with two
 * live agents; and once the clients are gone no node runs an agent, by its metrics and by the process list.
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { haproxyUnavailable } from "../../../src/node/testing/haproxy.js";
import {
  postgresUnavailable,
  startTestPostgres,
  type TestPostgres,
} from "../../../src/node/testing/postgres-server.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { createHttpStream } from "../../../src/entries/experimental/http-client.js";
import type { MessageStream } from "../remote/support/client-transports.js";
import { remoteClient, type RemoteClient } from "../remote/support/remote-client.js";
import { AgentSampler } from "./support/agent-processes.js";
import { reporting, type ReportedConnection } from "./support/many-report.js";
import { recordedTexts } from "./support/session-histories.js";
import { startServeCluster, type ServeCluster } from "./support/serve-cluster.js";

const unavailable = postgresUnavailable() ?? haproxyUnavailable();
/**
 * Connections: two per node in the suite (the machine running it is small; the count is what the nodes share), and
 * the chunks of each turn. The issue's figure, 100 connections, is run by hand with
 * `ACPKIT_SERVE_MANY_CONNECTIONS=100 ACPKIT_SERVE_MANY_CHUNKS=1000` (docs/cluster.md has what it gave).
 */
const CONNECTIONS = Number(process.env.ACPKIT_SERVE_MANY_CONNECTIONS ?? 6);
const CHUNKS = Number(process.env.ACPKIT_SERVE_MANY_CHUNKS ?? 30_000);
/** Connections opened at once. */
const OPENING = 5;
/** How often the process lists are sampled (ms; the lease rows: every 50 ms). */
const PROCESS_SAMPLE_MS = 200;
/** While a phase waits, a report of what it waits for every this many ms (stderr): where a hang is. */
const REPORT_MS = Number(process.env.ACPKIT_SERVE_MANY_REPORT_MS ?? 30_000);
let database: TestPostgres | undefined;
let cluster: ServeCluster | undefined;
let work: string;

before(async () => {
  if (unavailable !== undefined) return;
  work = makeTempDir("acp-serve-many-");
  // Each node holds up to 24 connections to the database, and each agent its own pool: more than the default 100.
  database = await startTestPostgres({ settings: { max_connections: "400" } });
  // --verbose: each adoption's duration is in the node's log (for the figures).
  const verbose = process.env.REMOTE_VERBOSE ? [] : ["--verbose"];
  cluster = await startServeCluster(database, { haproxy: true, leaseMs: 5000, extraArgs: verbose });
});

after(async () => {
  await cluster?.stop();
  await database?.close();
  removeTempDir(work);
});

test(
  `${CONNECTIONS} connections prompting at once, a node killed midway: each turn whole or failed, every connection works after`,
  { skip: unavailable, timeout: Number(process.env.ACPKIT_SERVE_MANY_TIMEOUT_MS ?? 180_000 + CONNECTIONS * 3_000) },
  async () => {
    const url = `${cluster!.haproxy!.url}/acp`;
    const clients: { client: RemoteClient; sessionId: string }[] = [];
    const clientLogs: string[][] = [];
    const started = Date.now();
    const figures: string[] = [];
    const lap = (what: string) => figures.push(`${what} ${((Date.now() - started) / 1000).toFixed(1)} s`);
    /** The connections a phase still waits for, as the report shows them. */
    const waitingFor = (done: (i: number) => boolean) => (): ReportedConnection[] =>
      clients.flatMap(({ client, sessionId }, index) => {
        if (done(index)) return [];
        const texts = client.host.texts(0, sessionId);
        return [{ index, sessionId, received: () => `${texts.length} chunks, last ${JSON.stringify(texts.at(-1))}` }];
      });
    const open = async (i: number) => {
      // The client's own account of its streams (breaks, resumes), shown for a connection that fails.
      const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
        clientLogs[i]!.push(`${new Date().toISOString()} ${level} ${message} ${JSON.stringify(fields ?? {})}`);
      clientLogs[i] = [];
      const stream = createHttpStream(url, {
        headers: { Authorization: `Bearer ${cluster!.token}` },
        logger: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
      }) as MessageStream;
      const client = await remoteClient(stream, work, "acpkit");
      await client.initialize();
      clients[i] = { client, sessionId: await client.newSession(work) };
    };
    // Every node's agent processes, from the first one started to the last one gone.
    const processes = new AgentSampler(
      () =>
        cluster!.nodes.map((node) => ({
          name: node.name,
          pid:
            node.process.child.exitCode === null && node.process.child.signalCode === null
              ? node.process.child.pid
              : undefined,
        })),
      PROCESS_SAMPLE_MS,
    );
    try {
      // A few at a time (each starts an agent): one by one, 100 took minutes before the test began.
      for (let i = 0; i < CONNECTIONS; i += OPENING) {
        const batch = Array.from({ length: Math.min(OPENING, CONNECTIONS - i) }, (_, k) => open(i + k));
        await reporting(cluster!, `opening connections ${i}..`, REPORT_MS, () => [], Promise.all(batch));
      }
    } catch (error) {
      await processes.stop();
      throw error;
    }
    lap("connections open");
    const moves = new Map<string, string[]>();
    /** When each connection's lease row was first seen naming another node (ms since the kill). */
    const movedAfterKill: number[] = [];
    let killedAt: number | undefined;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        // A sample the loaded database did not answer in time is skipped (the next one comes 50 ms later).
        const rows = await cluster!.pool
          .query<{ connection_id: string; owner_node: string }>(
            "SELECT connection_id, owner_node FROM acpkit_cluster_connections WHERE ended_at IS NULL",
          )
          .catch(() => ({ rows: [] }));
        for (const row of rows.rows) {
          const seen = moves.get(row.connection_id) ?? [];
          if (seen.at(-1) !== row.owner_node) {
            if (seen.length > 0 && killedAt !== undefined) movedAfterKill.push(Date.now() - killedAt);
            seen.push(row.owner_node);
          }
          moves.set(row.connection_id, seen);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      // The node with the most agents, chosen before the turns start, so that it dies while they run (on a quiet
      // machine a turn takes about a second).
      const owners = await cluster!.pool.query<{ owner_node: string; n: number }>(
        "SELECT owner_node, count(*)::int AS n FROM acpkit_cluster_connections WHERE ended_at IS NULL " +
          "GROUP BY owner_node ORDER BY n DESC",
      );
      const victim = cluster!.nodes.findIndex((node) => node.nodeId === owners.rows[0]!.owner_node);
      const settled = new Set<number>();
      const turns = clients.map(({ client, sessionId }, i) =>
        client
          .prompt(sessionId, `/stream ${CHUNKS} t${i}`)
          .then(
            () => "done" as const,
            (error: Error) => error.message,
          )
          .finally(() => settled.add(i)),
      );
      // Midway: once the turns are under way, the node with the most agents dies.
      // (Polled: a condition on every client, which no one client's updates would wake.)
      const underWay = Date.now() + 60_000;
      while (!clients.some(({ client, sessionId }) => client.host.texts(0, sessionId).length > 0)) {
        assert.ok(Date.now() < underWay, "no turn under way after 60 s");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      lap("turns under way");
      processes.sample();
      killedAt = Date.now();
      await cluster!.kill(victim);
      lap(`${cluster!.nodes[victim]!.name} killed`);
      const outcomes = await reporting(
        cluster!,
        "turns",
        REPORT_MS,
        waitingFor((i) => settled.has(i)),
        Promise.all(turns),
      );
      lap("turns settled");
      let completed = 0;
      for (const [i, outcome] of outcomes.entries()) {
        const { client, sessionId } = clients[i]!;
        const texts = client.host.texts(0, sessionId).filter((text) => text.startsWith(`t${i} `));
        if (outcome === "done") {
          completed++;
          assert.deepEqual(
            texts,
            Array.from({ length: CHUNKS }, (_, k) => `t${i} ${k + 1}\n`),
            `connection ${i}: every chunk once, in order`,
          );
        } else {
          // The adopting node answers the lost prompt saying the node went away (the dead node's cut streams are
          // resumed elsewhere: they carry no end event); a prompt whose POST was on its way to the node as it died
          // gets the balancer's 502, and one that reached a node as its connection moved away a 503 that says so.
          // Each is an error that says what happened, never a hang; the first is the aim (docs/cluster.md, "Limits").
          assert.match(
            outcome,
            /went away during the turn|HTTP 502 Bad Gateway.*may have processed the request anyway|moved to another node as the prompt arrived/,
            `connection ${i}`,
          );
          // What arrived before the node died is a prefix of the turn, each chunk once.
          assert.deepEqual(
            texts,
            Array.from({ length: texts.length }, (_, k) => `t${i} ${k + 1}\n`),
            `connection ${i}`,
          );
        }
      }
      const failures = new Map<string, number>();
      for (const outcome of outcomes)
        if (outcome !== "done") {
          const kind = /went away|502|moved to another node/.exec(outcome)?.[0] ?? outcome;
          failures.set(kind, (failures.get(kind) ?? 0) + 1);
        }
      figures.push(`${completed} turns completed, failed: ${JSON.stringify(Object.fromEntries(failures))}`);
      assert.ok(completed < CONNECTIONS, "some turns ran on the killed node");
      assert.ok(completed > 0, "the other nodes' turns completed");
      // Every connection works afterwards, the adopted ones included.
      const answered = new Set<number>();
      await reporting(
        cluster!,
        "prompts after",
        REPORT_MS,
        waitingFor((i) => answered.has(i)),
        Promise.all(
          clients.map(async ({ client, sessionId }, i) => {
            assert.deepEqual(await client.prompt(sessionId, `/stream 2 after${i}`), { stopReason: "end_turn" });
            answered.add(i);
          }),
        ),
      );
      lap("prompts after answered");
      // The histories the agents recorded: every update once, in order; nothing the client saw is missing (the
      // agent toolkit records an update before it sends it); a failed turn's prefix, never a chunk twice.
      const histories = await recordedTexts(
        cluster!.pool,
        clients.map(({ sessionId }) => sessionId),
      );
      let recorded = 0;
      for (const [i, outcome] of outcomes.entries()) {
        const { client, sessionId } = clients[i]!;
        const history = histories.get(sessionId)!;
        const ours = history.agent.filter((text) => text.startsWith(`t${i} `) || text.startsWith(`after${i} `));
        const turn = ours.filter((text) => text.startsWith(`t${i} `));
        const received = client.host.texts(0, sessionId).filter((text) => text.startsWith(`t${i} `)).length;
        if (outcome === "done") assert.equal(turn.length, CHUNKS, `connection ${i}: the history holds the whole turn`);
        else
          assert.ok(
            turn.length >= received,
            `connection ${i}: the history holds all ${received} chunks the client received, it has ${turn.length}`,
          );
        assert.deepEqual(
          ours,
          [...Array.from({ length: turn.length }, (_, k) => `t${i} ${k + 1}\n`), `after${i} 1\n`, `after${i} 2\n`],
          `connection ${i}: the history holds each chunk once, in order`,
        );
        const prompts = history.user.filter((text) => text === `/stream ${CHUNKS} t${i}`).length;
        assert.ok(
          prompts === 1 || (prompts === 0 && outcome !== "done"),
          `connection ${i}: its prompt recorded ${prompts} times`,
        );
        assert.equal(history.user.filter((text) => text === `/stream 2 after${i}`).length, 1, `connection ${i}`);
        recorded += turn.length;
      }
      figures.push(`${recorded} chunks in the histories`);
    } catch (error) {
      process.stderr.write(`[serve-many] failed; figures so far: ${figures.join("; ")}\n`);
      // By hand: ACPKIT_SERVE_MANY_LOGS=<dir> keeps each node's whole log (with --verbose: adoptions, closes).
      const logs = process.env.ACPKIT_SERVE_MANY_LOGS;
      if (logs !== undefined)
        for (const node of cluster!.nodes) writeFileSync(`${logs}/${node.name}.log`, node.process.stderr());
      for (const [i, lines] of clientLogs.entries())
        if (lines.length > 0) process.stderr.write(`[serve-many] client ${i}:\n  ${lines.join("\n  ")}\n`);
      throw error;
    } finally {
      sampling = false;
      await sampler;
      for (const { client } of clients) client.close();
      await processes.stop();
    }
    for (const [connectionId, owners] of moves)
      assert.ok(owners.length <= 2, `${connectionId} moved more than once: ${owners.join(" -> ")}`);
    // Once the clients are gone, no node runs an agent.
    const deadline = Date.now() + 15_000;
    for (const node of cluster!.nodes.filter(
      (node) => node.process.child.exitCode === null && node.process.child.signalCode === null,
    )) {
      for (;;) {
        const metrics = await (
          await fetch(node.process.url.replace(/\/acp$/, "/metrics"), {
            headers: { authorization: `Bearer ${cluster!.token}` },
          })
        ).text();
        const agents = Number(/^acpkit_cluster_agents\{[^}]*\} (\d+)$/m.exec(metrics)?.[1]);
        if (agents === 0) break;
        assert.ok(Date.now() < deadline, `${node.name} still runs ${agents} agents`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    // Nor does the process list show one (an agent orphaned by the killed node included).
    const labels = new Set([...processes.labels, ...[...moves.keys()].map((id) => id.slice(0, 8))]);
    const gone = Date.now() + 15_000;
    for (;;) {
      const left = processes.list.read().filter((agent) => labels.has(agent.label));
      if (left.length === 0) break;
      assert.ok(Date.now() < gone, `agent processes left: ${left.map((a) => `pid ${a.pid} (${a.label})`).join(", ")}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    lap("no agent left");
    figures.push(`lease rows moved ${spread(movedAfterKill)} after the kill`, `adoptions took ${spread(adoptionMs())}`);
    figures.push(
      `process lists: ${processes.samples} samples, up to ${processes.most} agents at once, ${processes.labels.size} connections' agents seen`,
    );
    process.stderr.write(`[serve-many] ${CONNECTIONS} connections x ${CHUNKS} chunks: ${figures.join("; ")}\n`);
    assert.deepEqual(processes.doubled, [], "a connection had two live agents at once");
    // The sampler saw every connection's agent (else the check above proves nothing).
    assert.ok(
      processes.labels.size >= CONNECTIONS,
      `agents of ${processes.labels.size} connections seen, ${CONNECTIONS} open`,
    );
  },
);

/** Each adoption's duration by its node's log (`cluster: adopted a connection`, with --verbose). */
function adoptionMs(): number[] {
  return cluster!.nodes.flatMap((node) =>
    [...node.process.stderr().matchAll(/cluster: adopted a connection \{[^\n]*"ms":(\d+)/g)].map((m) => Number(m[1])),
  );
}

/** "n: min / median / max s" of durations in ms. */
function spread(ms: number[]): string {
  if (ms.length === 0) return "0";
  const sorted = [...ms].sort((a, b) => a - b);
  const s = (value: number) => (value / 1000).toFixed(1);
  return `${ms.length}: ${s(sorted[0]!)} / ${s(sorted[Math.floor(sorted.length / 2)]!)} / ${s(sorted.at(-1)!)} s (min / median / max)`;
}
