/**
 * `acp serve` stopped by SIGINT (Ctrl-C) and by SIGHUP (its terminal gone) mid-turn, as SIGTERM is in
 * faults.test.ts: the running turn ends `cancelled`, acp serve exits 0, and the agent's whole process group is gone,
 * a child the agent started included (the agent here is `sh -c 'sleep 300 & exec <agent>'`, so its group holds the
 * agent and a sleeping child that nobody waits for).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fixturePath } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { acpkitHttp, officialWebSocket } from "./support/client-transports.js";
import { remoteClient } from "./support/remote-client.js";
import { startServe, waitForExit } from "./support/serve-process.js";

const STEP = { timeout: 60_000 };
const READY = /agent ([0-9a-f]{8}) \| \[agent (\d+)\] interop-agent-app on acpkit ready/;

/** The pids of the processes in process group `pgid` (Linux: /proc). */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") members.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return members;
}

async function groupGone(pgid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = groupMembers(pgid);
    if (left.length === 0) return;
    if (Date.now() > deadline) assert.fail(`process group ${pgid} still has ${left.join(", ")} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let work: string;
before(() => void (work = makeTempDir("acp-serve-signals-")));
after(() => removeTempDir(work));

const agentWithChild =
  `sh -c 'sleep 300 >/dev/null 2>&1 & exec "${process.execPath}" "${fixturePath("interop-agent-app")}" ` +
  `--impl=acpkit'`;

describe(
  "acp serve stopped by SIGINT or SIGHUP mid-turn",
  { skip: process.platform === "linux" ? false : "process groups are read from /proc" },
  () => {
    for (const [signal, transport] of [
      ["SIGINT", officialWebSocket],
      ["SIGHUP", acpkitHttp],
    ] as const) {
      it(
        `${signal} (${transport.name}): the turn ends cancelled, exit 0, the agent's whole process group is gone`,
        STEP,
        async () => {
          const serve = await startServe(["--agent", agentWithChild, "--verbose"]);
          const client = await remoteClient(
            transport.open({ url: serve.url, webSocketUrl: serve.webSocketUrl, token: serve.token }),
            work,
            transport.impl,
          );
          await client.initialize();
          const sessionId = await client.newSession(work);
          const running = client.prompt(sessionId, "slow").then(
            (response) => response.stopReason,
            (error: Error) => `error: ${error.message}`,
          );
          await client.host.until(
            () => client.host.texts(0, sessionId).includes("waiting"),
            10_000,
            "the waiting update",
          );
          const agent = Number((await serve.waitForStderr(READY))[2]);
          const members = groupMembers(agent);
          assert.ok(
            members.includes(agent) && members.length >= 2,
            `the agent's group holds the agent and its child: ${members.join(", ")}`,
          );

          assert.deepEqual(await serve.stop(signal), { code: 0, signal: null });
          assert.equal(
            await running,
            "cancelled",
            "the turn was cancelled and its answer delivered before the stream ended",
          );
          assert.match(serve.stderr(), new RegExp(`${signal}: stopping`));
          assert.match(serve.stderr(), /acp serve: stopped/);
          for (const pid of members) await waitForExit(pid, 5000);
          await groupGone(agent, 5000);
          await client.closed.catch(() => {});
        },
      );
    }
  },
);
