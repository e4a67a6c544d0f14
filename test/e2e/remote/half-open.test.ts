/**
 * Half-open clients: a peer that stops answering without closing (no close frame, no FIN), over real sockets.
 * - WebSocket: the Node adapter pings every `keepAliveMs`; a socket that did not answer the previous ping is
 *   terminated, its connection ends and its agent process is stopped, while a peer that answers stays connected.
 *   The silent peer answers pings until it is initialized, then stops (on a loaded machine the agent may take longer
 *   than two ping intervals to start).
 * - Streamable HTTP: SSE has no pong, so the server cannot tell a silent reader from a dead one. What frees a stream
 *   whose client vanished without a FIN is TCP itself: the keep-alive comments the server writes are never
 *   acknowledged, the kernel gives up after its retransmission timeout (`net.ipv4.tcp_retries2`), the stream
 *   fails, and the idle timeout closes the connection and stops its agent. Shown in a network namespace of its own
 *   (`unshare -rn`) where loopback is taken down mid-turn and `tcp_retries2` is lowered; skipped, with the reason,
 *   where unprivileged namespaces are not allowed.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import type { ConnectionEvent } from "../../../src/entries/remote.js";
import { listenAcp, stdioAgentConnector } from "../../../src/entries/node.js";
import { fixturePath, track, within } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import type { PartitionReport } from "./support/partition-scenario.js";
import { openSilentWebSocket } from "./support/raw-websocket.js";
import { isAlive, waitForExit } from "./support/serve-process.js";

const STEP = { timeout: 120_000 };
const TOKEN = "half-open";
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
});

let work: string;
before(() => void (work = makeTempDir("acp-half-open-")));
after(() => removeTempDir(work));

async function until(test: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("WebSocket: ping/pong finds a peer that stopped answering", () => {
  it(
    "a socket that stops answering pings (and never closes) is terminated, its connection closed and its " +
      "agent stopped; a peer that answers stays",
    STEP,
    async () => {
      const events: ConnectionEvent[] = [];
      const agents = new Map<string, number>();
      const stopped = new Set<number>();
      const listening = await listenAcp({
        token: TOKEN,
        keepAliveMs: 200,
        agent: stdioAgentConnector({
          argv: [process.execPath, fixturePath("interop-agent-app"), "--impl=acpkit"],
          onProcess: (event) =>
            event.type === "started" ? agents.set(event.connectionId!, event.pid) : stopped.add(event.pid),
        }),
        onConnectionEvent: (event) => events.push(event),
      });
      const healthy = new WebSocket(listening.webSocketUrl, "acp", { headers: { authorization: `Bearer ${TOKEN}` } });
      let silent: Awaited<ReturnType<typeof openSilentWebSocket>> | undefined;
      try {
        // The healthy peer: the ws client answers every ping with a pong, as a live peer does.
        let healthyPings = 0;
        healthy.on("ping", () => healthyPings++);
        let healthyId = "";
        healthy.once("upgrade", (response) => (healthyId = String(response.headers["acp-connection-id"])));
        await within(
          new Promise((resolve, reject) => {
            healthy.once("open", resolve);
            healthy.once("error", reject);
          }),
          20_000,
          "the healthy peer's upgrade",
        );
        const healthyAnswer = new Promise<string>((resolve) =>
          healthy.once("message", (data) => resolve(String(data))),
        );
        healthy.send(INITIALIZE);
        assert.ok(JSON.parse(await within(healthyAnswer, 20_000, "the healthy peer's initialize answer")).result);

        // The other peer: initializes (answering pings meanwhile), then goes silent: no pong, no close, no FIN.
        silent = await openSilentWebSocket(listening.webSocketUrl, { authorization: `Bearer ${TOKEN}` });
        silent.sendText(INITIALIZE);
        assert.ok(JSON.parse(await within(silent.nextText(), 20_000, "the silent peer's initialize answer")).result);
        const silentId = silent.connectionId;
        await until(() => agents.has(silentId) && agents.has(healthyId), 20_000, "both agents to start");
        const silentAgent = agents.get(silentId)!;
        assert.ok(isAlive(silentAgent));
        silent.stopAnswering();

        await until(
          () => events.some((event) => event.type === "close" && event.connectionId === silentId),
          20_000,
          "the silent connection to be closed",
        );
        const closed = events.find((event) => event.type === "close" && event.connectionId === silentId)!;
        assert.equal(closed.type === "close" && closed.reason, "socket closed");
        assert.ok(
          silent.unansweredPings >= 1,
          `the silent peer was pinged (${silent.unansweredPings}) and did not answer`,
        );
        await within(silent.closed, 10_000, "the server to end the silent peer's TCP connection");
        await waitForExit(silentAgent);
        await until(
          () => stopped.has(silentAgent),
          10_000,
          "the connector to report the silent connection's agent stopped",
        );

        // The healthy peer answered pings over the same time and more, and is untouched.
        const seen = healthyPings;
        await until(() => healthyPings >= seen + 3, 20_000, "three more pings to the healthy peer");
        assert.equal(healthy.readyState, WebSocket.OPEN);
        assert.ok(
          !events.some((event) => event.type === "close" && event.connectionId === healthyId),
          "the healthy connection is still open",
        );
        assert.ok(isAlive(agents.get(healthyId)!), "the healthy connection's agent still runs");
        assert.deepEqual(
          listening.server.stats().map((stats) => stats.connectionId),
          [healthyId],
        );
      } finally {
        silent?.destroy();
        healthy.terminate();
        await listening.close({ graceMs: 0 });
      }
    },
  );
});

const SCENARIO = fileURLToPath(new URL("./support/partition-scenario.js", import.meta.url));

/** Why a network namespace of our own cannot be made here, or undefined when it can. */
function namespaceUnavailable(): string | undefined {
  if (process.platform !== "linux") return "network namespaces are Linux only";
  const probe = spawnSync(
    "unshare",
    ["-rn", "sh", "-c", "ip link set lo up && test -w /proc/sys/net/ipv4/tcp_retries2"],
    { encoding: "utf8", timeout: 10_000 },
  );
  if (probe.error) return `unshare could not run (${probe.error.message})`;
  if (probe.status !== 0)
    return (
      `unshare -rn with ip and a writable tcp_retries2 is not allowed here ` +
      `(${probe.stderr.trim() || `exit ${probe.status}`})`
    );
  return undefined;
}

describe("Streamable HTTP: an SSE client that vanished without a FIN", () => {
  const unavailable = namespaceUnavailable();
  it(
    "is freed by TCP's retransmission timeout on the keep-alive comments, then the idle timeout stops its agent",
    { ...STEP, skip: unavailable },
    async () => {
      const child = spawn("unshare", ["-rn", process.execPath, "--enable-source-maps", SCENARIO, "3"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      track(child);
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
      child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
      const code = await within(
        new Promise<number | null>((resolve) => child.once("close", resolve)),
        110_000,
        "the partition scenario",
      );
      assert.equal(code, 0, `the scenario failed:\n${stderr}`);
      const report = JSON.parse(stdout.trim()) as PartitionReport;
      // Control: streams open, nothing answered but the keep-alives read: the connection and its agent stay.
      assert.equal(report.closedBeforePartition, false, "nothing closed the connection while its streams were open");
      assert.equal(report.agentAliveBeforePartition, true);
      // Cut off: closed as idle once TCP gave up on the unacknowledged keep-alives, and the agent process stopped.
      assert.equal(report.closeReason, "idle", JSON.stringify(report));
      assert.ok(report.closedAfterMs !== undefined && report.agentStoppedAfterMs !== undefined, JSON.stringify(report));
      assert.equal(report.agentGone, true);
      process.stderr.write(
        `# half-open SSE with tcp_retries2=3: connection closed ${report.closedAfterMs} ms, agent stopped ` +
          `${report.agentStoppedAfterMs} ms after the partition\n`,
      );
    },
  );
});
