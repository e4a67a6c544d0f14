/**
 * Faults of issue 8 as regression tests over real processes, with the official SDK 1.9.0's example agent (shipped
 * compiled, run unchanged; ../acp.js pointed at acpkit or left on the official SDK) as the peer:
 * - fault 1: an acpkit client ends the agent by closing the writable it gave `ndJsonStream` (the agent's stdin);
 *   the agent exits and the client's `closed` resolves, whichever SDK the agent runs on;
 * - fault 5: a handler that throws a plain Error is answered -32603 with its message in `data.details`, the same
 *   from an acpkit agent as from an official one.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { describe, test } from "node:test";
import {
  ClientSideConnection,
  client as acpClient,
  ndJsonStream,
  silentLogger,
  type Client,
} from "../../../src/entries/index.js";
import { repoRoot } from "../../../src/protocol/testing/repo.js";
import { within } from "./support/spawn.js";

const register = join(repoRoot, "dist/test/e2e/interop/support/official-programs/register.js");
const exampleAgent = join(repoRoot, "node_modules/sdk-1.9/dist/examples/agent.js");
type Sdk = "acpkit" | "official";

function startAgent(sdk: Sdk): {
  child: ChildProcess;
  output: WritableStream<Uint8Array>;
  input: ReadableStream<Uint8Array>;
  exited: Promise<[code: number | null, signal: NodeJS.Signals | null]>;
} {
  const child = spawn(process.execPath, ["--import", register, exampleAgent], {
    env: { ...process.env, ACP_PROGRAM_SDK: sdk },
    stdio: ["pipe", "pipe", "ignore"],
  });
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  void exited.then(() => clearTimeout(timer));
  return {
    child,
    output: Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    input: Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    exited,
  };
}

const handlers: Client = {
  requestPermission: async () => ({ outcome: { outcome: "cancelled" } }),
  sessionUpdate: async () => {},
};

/** The agent ends on its own, cleanly, once its stdin is closed (not by the 60 s SIGKILL of `startAgent`). */
async function agentExitsByItself(agent: ReturnType<typeof startAgent>): Promise<void> {
  const [code, signal] = await within(agent.exited, 10_000, "the agent to exit once its stdin closed");
  assert.deepEqual({ code, signal }, { code: 0, signal: null });
}

for (const sdk of ["official", "acpkit"] as const) {
  describe(`against the example agent on ${sdk === "acpkit" ? "acpkit" : "the official SDK"}`, () => {
    test(
      "fault 1: a 1.x acpkit client closes the agent's stdin through the stream it gave ndJsonStream; the agent " +
        "exits",
      async () => {
        const agent = startAgent(sdk);
        const connection = new ClientSideConnection(() => handlers, ndJsonStream(agent.output, agent.input), {
          logger: silentLogger,
        });
        const init = await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
        assert.equal(init.protocolVersion, 1);
        await agent.output.close();
        await agentExitsByItself(agent);
        await within(connection.closed, 10_000, "the connection to close once the agent is gone");
        assert.equal(connection.signal.aborted, true);
      },
    );

    test("fault 1: the same from a 2.x client app", async () => {
      const agent = startAgent(sdk);
      const connection = acpClient({ logger: silentLogger }).connect(ndJsonStream(agent.output, agent.input));
      await connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      await agent.output.close();
      await agentExitsByItself(agent);
      await within(connection.closed, 10_000, "the connection to close once the agent is gone");
      assert.equal(connection.signal.aborted, true);
    });

    test("fault 5: a handler's plain Error comes back as -32603 with the message in data.details", async () => {
      const agent = startAgent(sdk);
      const connection = new ClientSideConnection(() => handlers, ndJsonStream(agent.output, agent.input), {
        logger: silentLogger,
      });
      await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
      await assert.rejects(
        connection.prompt({ sessionId: "nope", prompt: [] }),
        (error: { code?: number; message?: string; data?: unknown }) => {
          assert.equal(error.code, -32603);
          assert.equal(error.message, "Internal error");
          assert.deepEqual(error.data, { details: "Session nope not found" });
          return true;
        },
      );
      await agent.output.close();
      await agent.exited;
    });
  });
}
