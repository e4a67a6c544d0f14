/**
 * Run as a program inside its own network namespace (`unshare -rn node partition-scenario.js RETRIES`): an HTTP
 * client that vanishes without a FIN while its SSE streams are open, as when its machine loses power or the network
 * between them drops. Loopback is the only interface of the namespace, so `ip link set lo down` cuts the client off
 * without either side sending anything: no FIN, no RST, no ACK ever again.
 *
 * Steps: bring `lo` up and set `net.ipv4.tcp_retries2` (per namespace) to RETRIES; `listenAcp` with a stdio agent
 * (keep-alive comments every 200 ms, idle timeout 500 ms); a bare client initializes, opens the connection stream,
 * creates a session, opens its stream and starts a turn that waits. Control: for three idle timeouts the open
 * streams keep the connection and its agent. Then `lo` goes down, and the program reports (one JSON line on stdout)
 * whether and when the connection was closed and its agent stopped.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import type { ConnectionEvent } from "../../../../src/entries/remote.js";
import { listenAcp, stdioAgentConnector } from "../../../../src/entries/node.js";
import { fixturePath } from "../../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../../interop/support/temp.js";
import { openRawSse, postJson } from "./raw-http.js";
import { isAlive } from "./serve-process.js";

/** What the scenario reports. */
export interface PartitionReport {
  agentAliveBeforePartition: boolean;
  closedBeforePartition: boolean;
  closeReason: string | undefined;
  closedAfterMs: number | undefined;
  agentStoppedAfterMs: number | undefined;
  agentGone: boolean;
}

const IDLE_MS = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Refuses to run outside a fresh network namespace: taking `lo` down and lowering `tcp_retries2` in the machine's own
 * would break every other program on it (it once did, run by hand). A namespace made by `unshare -rn` has loopback
 * and nothing else (`ip -o link`); `/proc/1/ns/net` cannot be relied on (unreadable in some sandboxes).
 */
function assertOwnNetworkNamespace(): void {
  const links = execFileSync("ip", ["-o", "link", "show"], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(":")[1]?.trim().split("@")[0]);
  if (links.length !== 1 || links[0] !== "lo") {
    throw new Error(
      `partition-scenario must run in its own network namespace (unshare -rn node partition-scenario.js N); ` +
        `this one has ${links.join(", ")}: refusing to take the machine's loopback down`,
    );
  }
}

async function main(retries: string): Promise<PartitionReport> {
  assertOwnNetworkNamespace();
  execFileSync("ip", ["link", "set", "lo", "up"]);
  writeFileSync("/proc/sys/net/ipv4/tcp_retries2", retries);
  const work = makeTempDir("acp-partition-");
  const events: ConnectionEvent[] = [];
  let agentPid: number | undefined;
  let stoppedAt: number | undefined;
  let closedAt: number | undefined;
  const listening = await listenAcp({
    token: "partition",
    keepAliveMs: 200,
    idleTimeoutMs: IDLE_MS,
    agent: stdioAgentConnector({
      argv: [process.execPath, fixturePath("interop-agent-app"), "--impl=acpkit"],
      onProcess: (event) => {
        if (event.type === "started") agentPid = event.pid;
        else stoppedAt = Date.now();
      },
    }),
    onConnectionEvent: (event) => {
      events.push(event);
      if (event.type === "close") closedAt = Date.now();
    },
  });
  try {
    const auth = { authorization: "Bearer partition" };
    const init = await postJson(listening.url, auth, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    });
    if (init.status !== 200) throw new Error(`initialize answered ${init.status}: ${init.text}`);
    const ids = { ...auth, "acp-connection-id": init.headers.get("acp-connection-id")! };
    const connection = await openRawSse(listening.url, ids);
    await postJson(listening.url, ids, {
      jsonrpc: "2.0",
      id: 1,
      method: "session/new",
      params: { cwd: work, mcpServers: [] },
    });
    const sessionId = (await connection.until((event) => event.id === 1)).result.sessionId as string;
    const session = await openRawSse(listening.url, { ...ids, "acp-session-id": sessionId });
    const prompt = {
      jsonrpc: "2.0",
      id: 2,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "slow" }] },
    };
    const posted = await postJson(listening.url, { ...ids, "acp-session-id": sessionId }, prompt);
    if (posted.status !== 202) throw new Error(`the prompt POST answered ${posted.status}`);
    await session.until((event) => event.params?.update?.content?.text === "waiting");

    await sleep(3 * IDLE_MS);
    const agentAliveBeforePartition = agentPid !== undefined && isAlive(agentPid);
    const closedBeforePartition = events.some((event) => event.type === "close");

    execFileSync("ip", ["link", "set", "lo", "down"]);
    const partitionedAt = Date.now();
    const deadline = partitionedAt + 90_000;
    while (Date.now() < deadline && (stoppedAt === undefined || closedAt === undefined)) await sleep(50);
    const close = events.find((event) => event.type === "close");
    return {
      agentAliveBeforePartition,
      closedBeforePartition,
      closeReason: close?.type === "close" ? close.reason : undefined,
      closedAfterMs: closedAt === undefined ? undefined : closedAt - partitionedAt,
      agentStoppedAfterMs: stoppedAt === undefined ? undefined : stoppedAt - partitionedAt,
      agentGone: agentPid !== undefined && !isAlive(agentPid),
    };
  } finally {
    await listening.close({ graceMs: 0 });
    removeTempDir(work);
  }
}

// `node --test dist/test` runs every .js under test/, this one included: without its RETRIES argument (what
// half-open.test.ts passes under `unshare -rn`) it does nothing.
const retries = process.argv[2];
if (retries === undefined || !/^\d+$/.test(retries)) {
  process.stderr.write("partition-scenario: no RETRIES argument; nothing to do (see half-open.test.ts)\n");
  process.exit(0);
}
const report = await main(retries);
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
