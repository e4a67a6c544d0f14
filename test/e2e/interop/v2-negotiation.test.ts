/**
 * Version negotiation between protocol v1 and the v2 draft, over real child processes, with acpkit and the official
 * SDK 2.4.0 on each side:
 * - an agent serving both (its `agentProtocolRouter()`) gives a v1 client v1 and a v2 client v2, on the same program;
 * - the router answers what comes before `initialize` (-32600, a batch with `id: null`) and stays usable;
 * - a v2 client meeting a v1-only agent stops cleanly (acpkit: `ProtocolVersionError`, connection closed), and a v1
 *   client meeting a v2-only agent is refused with -32022 naming the versions.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadApp, loadV2, type Impl } from "./support/impl.js";
import { spawnFixture, within, type SpawnedAgent } from "./support/spawn.js";

const IMPLS: Impl[] = ["acpkit", "official"];
const errorCode = (error: unknown) => (error as { code?: unknown }).code;

function spawnAgent(impl: Impl, serve: "v2" | "router" | "v1"): SpawnedAgent {
  return spawnFixture("interop-agent-v2", impl, { args: [`--serve=${serve}`] });
}

async function v1Turn(clientImpl: Impl, agent: SpawnedAgent) {
  const sdk = await loadApp(clientImpl);
  let said = "";
  const app = sdk.client({ name: "v1-client" }).onNotification(sdk.methods.client.session.update, ({ params }) => {
    const update = params.update as { sessionUpdate: string; content?: { text?: string } };
    if (update.sessionUpdate === "agent_message_chunk") said += update.content?.text ?? "";
  });
  return app.connectWith(sdk.ndJsonStream(agent.output, agent.input), async (ctx) => {
    const init = await ctx.request(sdk.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
      clientInfo: { name: "v1-client", version: "1" },
    });
    const { sessionId } = await ctx.request(sdk.methods.agent.session.new, { cwd: "/tmp", mcpServers: [] });
    const response = await ctx.request(sdk.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    return { init, stopReason: response.stopReason, said };
  });
}

async function v2Turn(clientImpl: Impl, agent: SpawnedAgent) {
  const lib = await loadV2(clientImpl);
  return lib.client({ name: "v2-client" }).connectWith(lib.ndJsonStream(agent.output, agent.input), async (ctx) => {
    const init = await ctx.request("initialize", {
      protocolVersion: 2,
      info: { name: "v2-client", version: "1" },
      capabilities: {},
    });
    const session = await ctx.buildSession("/tmp").start();
    await session.prompt("stream 3");
    return { init, text: await session.readTextUntilIdle(AbortSignal.timeout(20_000)) };
  });
}

for (const agentImpl of IMPLS) {
  describe(`negotiation: ${agentImpl} agent serving v1 and v2 through its router`, () => {
    for (const clientImpl of IMPLS) {
      test(`a ${clientImpl} v1 client gets v1`, async () => {
        const agent = spawnAgent(agentImpl, "router");
        try {
          const { init, stopReason, said } = await v1Turn(clientImpl, agent);
          assert.equal(init.protocolVersion, 1);
          assert.equal(init.agentInfo?.name, `interop-v1-${agentImpl}`);
          assert.equal(stopReason, "end_turn");
          assert.equal(said, "v1 here");
        } finally {
          await agent.stop();
        }
      });

      test(`a ${clientImpl} v2 client gets v2`, async () => {
        const agent = spawnAgent(agentImpl, "router");
        try {
          const { init, text } = await v2Turn(clientImpl, agent);
          assert.equal(init.protocolVersion, 2);
          assert.equal(init.info.name, `interop-v2-${agentImpl}`);
          assert.equal(text, "chunk 0;chunk 1;chunk 2;");
        } finally {
          await agent.stop();
        }
      });
    }

    test(
      "before initialize: a request gets -32600, a batch one -32600 with id null, a notification nothing; then " +
        "initialize routes",
      async () => {
        const agent = spawnAgent(agentImpl, "router");
        try {
          const writer = agent.output.getWriter();
          const reader = agent.input
            .pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>)
            .getReader();
          const encoder = new TextEncoder();
          let buffered = "";
          const nextMessage = async (): Promise<Record<string, unknown>> => {
            for (;;) {
              const newline = buffered.indexOf("\n");
              if (newline >= 0) {
                const line = buffered.slice(0, newline);
                buffered = buffered.slice(newline + 1);
                if (line.trim()) return JSON.parse(line) as Record<string, unknown>;
                continue;
              }
              const { value, done } = await reader.read();
              if (done) throw new Error("the agent closed its output");
              buffered += value;
            }
          };
          const send = (message: unknown) => writer.write(encoder.encode(`${JSON.stringify(message)}\n`));
          await send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "nope" } });
          await send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp" } });
          const early = await nextMessage();
          assert.equal(early.id, 1);
          assert.equal((early.error as { code: number }).code, -32600);
          await send([{ jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: 2 } }]);
          const batch = await nextMessage();
          assert.equal(batch.id, null);
          assert.equal((batch.error as { code: number }).code, -32600);
          await send({
            jsonrpc: "2.0",
            id: 3,
            method: "initialize",
            params: { protocolVersion: 2, info: { name: "raw", version: "1" }, capabilities: {} },
          });
          const init = await nextMessage();
          assert.equal(init.id, 3);
          assert.equal((init.result as { protocolVersion: number }).protocolVersion, 2);
          await writer.close();
          reader.releaseLock();
        } finally {
          await agent.stop();
        }
      },
    );
  });
}

describe("negotiation: a peer that speaks only the other version", () => {
  for (const agentImpl of IMPLS) {
    test(
      `an acpkit v2 client meeting a v1-only ${agentImpl} agent fails with ProtocolVersionError and closes the ` +
        `connection`,
      async () => {
        const agent = spawnAgent(agentImpl, "v1");
        const lib = await loadV2("acpkit");
        try {
          const connection = lib.client().connect(lib.ndJsonStream(agent.output, agent.input));
          const error = await connection.agent
            .request("initialize", { protocolVersion: 2, info: { name: "v2-client", version: "1" }, capabilities: {} })
            .then(
              () => assert.fail("initialize should fail"),
              (e: unknown) => e,
            );
          assert.equal((error as Error).name, "ProtocolVersionError");
          assert.match((error as Error).message, /protocolVersion 1.*only ACP v2/);
          await connection.closed;
          assert.equal(connection.signal.aborted, true);
          await assert.rejects(connection.initialized);
        } finally {
          await agent.stop();
        }
      },
    );

    test(`the official v2 client meeting a v1-only ${agentImpl} agent is refused too (reference)`, async () => {
      const agent = spawnAgent(agentImpl, "v1");
      const lib = await loadV2("official");
      try {
        const connection = lib.client().connect(lib.ndJsonStream(agent.output, agent.input));
        await assert.rejects(
          connection.agent.request("initialize", {
            protocolVersion: 2,
            info: { name: "v2-client", version: "1" },
            capabilities: {},
          }),
        );
        await within(connection.closed, 10_000, "the official client's connection to close");
        assert.equal(connection.signal.aborted, true);
      } finally {
        await agent.stop();
      }
    });

    for (const clientImpl of IMPLS) {
      test(
        `a ${clientImpl} v1 client meeting a v2-only ${agentImpl} agent is refused with -32022 naming the ` +
          `versions`,
        async () => {
          const agent = spawnAgent(agentImpl, "v2");
          const sdk = await loadApp(clientImpl);
          try {
            await sdk.client().connectWith(sdk.ndJsonStream(agent.output, agent.input), async (ctx) => {
              const error = await ctx
                .request(sdk.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
                .then(
                  () => assert.fail("initialize should fail"),
                  (e: unknown) => e,
                );
              assert.equal(errorCode(error), -32022);
              assert.deepEqual((error as { data?: unknown }).data, { requested: 1, supported: [2] });
            });
          } finally {
            await agent.stop();
          }
        },
      );
    }
  }
});
