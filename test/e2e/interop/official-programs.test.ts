/**
 * Programs written for the official SDK run unchanged with the acpkit import, over real processes: the example
 * client and agent shipped compiled in `@agentclientprotocol/sdk@1.9.0` (`sdk-1.9/dist/examples`), whose only change
 * is where `../acp.js` resolves (./support/official-programs). The client spawns the agent on its stdio pipes, runs
 * a prompt turn with tool calls and a permission request (answered on the client's stdin), and exits. Every pairing:
 * official client and acpkit agent, acpkit client and official agent, acpkit on both sides, and the official
 * baseline.
 *
 * The programs are written on the `agent()` / `client()` app API, which 2.4.0 keeps unchanged, so they also run on
 * the official SDK 2.4.0's root: the 2.4.0 pairings below put 2.4.0 on the official side. 2.4.0 ships no example
 * programs of its own (its `src/examples` are left out of the npm package); see ./README.md.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { describe, test } from "node:test";
import { repoRoot } from "../../../src/protocol/testing/repo.js";

const register = join(repoRoot, "dist/test/e2e/interop/support/official-programs/register.js");
const exampleClient = join(repoRoot, "node_modules/sdk-1.9/dist/examples/client.js");

type Sdk = "acpkit" | "official" | "official-2.4.0";
const SDK_NAME: Record<Sdk, string> = {
  acpkit: "acpkit",
  official: "the official SDK 1.9.0",
  "official-2.4.0": "the official SDK 2.4.0",
};

async function runExample(client: Sdk, agent: Sdk): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", register, exampleClient], {
    cwd: repoRoot,
    env: { ...process.env, ACP_PROGRAM_SDK: client, ACP_AGENT_SDK: agent },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let answered = false;
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
    if (!answered && stdout.includes("Choose an option")) {
      answered = true;
      child.stdin.write("1\n");
    }
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

// The pairings run side by side: each is two processes that spend most of a turn in the example agent's simulated
// model pauses (1 s timers), not on the CPU; every pairing still runs its own processes and asserts the same.
describe("the official SDK's example programs, unchanged, over real processes", { concurrency: 4 }, () => {
  const pairings: Array<[Sdk, Sdk]> = [
    ["official", "acpkit"],
    ["acpkit", "official"],
    ["acpkit", "acpkit"],
    ["official", "official"],
    ["official-2.4.0", "acpkit"],
    ["acpkit", "official-2.4.0"],
    ["official-2.4.0", "official-2.4.0"],
  ];
  for (const [client, agent] of pairings) {
    test(`${client} example client, ${agent} example agent: a whole turn with a permission request`, async () => {
      const { code, stdout, stderr } = await runExample(client, agent);
      const why = `stdout:\n${stdout}\nstderr:\n${stderr}`;
      assert.equal(code, 0, why);
      assert.match(stderr, new RegExp(`examples/client\\.js on ${SDK_NAME[client].replace(/\./g, "\\.")}\n`), why);
      assert.match(stderr, new RegExp(`examples/agent\\.js on ${SDK_NAME[agent].replace(/\./g, "\\.")}\n`), why);
      assert.match(stdout, /Connected to agent \(protocol v1\)/, why);
      assert.match(stdout, /Created session: [0-9a-f]{32}/, why);
      assert.match(stdout, /Permission requested/, why);
      assert.match(stdout, /Agent completed with: end_turn/, why);
      assert.doesNotMatch(stderr, /\[Client\] Error|acpkit (warn|error)/, why);
    });
  }
});
