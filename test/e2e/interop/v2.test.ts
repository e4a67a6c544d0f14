/**
 * Protocol v2 (draft) over real child processes, in every pairing of acpkit and the official SDK 2.4.0's
 * `experimental/v2` (same fixture and same client code, other import): initialization (and its refusal before),
 * a session, a prompt acknowledged at once with its turn reported through `state_update`s, streamed output, a
 * permission round trip with v2's params, `session/cancel` ending the turn `cancelled`, `tool_call/cancel` of a
 * tool call that advertises it, an extension request, `session/close`. Every message either side wrote is checked
 * strictly against v2's schema.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { loadV2, type Impl } from "./support/impl.js";
import { checkSent, loadV2Protocol, wireEvents } from "./support/schema-check.js";
import { spawnFixture } from "./support/spawn.js";

const IMPLS: Impl[] = ["acpkit", "official"];

/** Reads the session's messages until `found` says stop; returns what was read. */
async function readUntil(
  session: v2.ActiveSession,
  found: (message: v2.ActiveSessionMessage) => boolean,
): Promise<v2.ActiveSessionMessage[]> {
  const seen: v2.ActiveSessionMessage[] = [];
  for (;;) {
    const message = await session.nextUpdate(AbortSignal.timeout(20_000));
    seen.push(message);
    if (found(message)) return seen;
  }
}

const errorCode = (error: unknown) => (error as { code?: unknown }).code;

for (const agentImpl of IMPLS) {
  for (const clientImpl of IMPLS) {
    describe(`protocol v2: ${agentImpl} agent, ${clientImpl} client, over real pipes`, () => {
      test(
        "initialize, prompt turns reported by state_update, permission, cancel, tool_call/cancel, extension, " +
          "close; every frame on v2's schema",
        async () => {
          const agent = spawnFixture("interop-agent-v2", agentImpl);
          const lib = await loadV2(clientImpl);
          const permissions: v2.RequestPermissionRequest[] = [];
          const app = lib
            .client({ name: "v2-interop-client" })
            .onRequest("session/request_permission", ({ params }) => {
              permissions.push(params);
              return { outcome: { outcome: "selected", optionId: "allow" } };
            });
          try {
            await app.connectWith(lib.ndJsonStream(agent.output, agent.input), async (ctx) => {
              await assert.rejects(
                ctx.request("session/new", { cwd: "/tmp", mcpServers: [] }),
                (e: unknown) => errorCode(e) === -32600,
              );
              const init = await ctx.request("initialize", {
                protocolVersion: 2,
                info: { name: "v2-interop-client", version: "1.0.0" },
                capabilities: {},
              });
              assert.equal(init.protocolVersion, 2);
              assert.equal(init.info.name, `interop-v2-${agentImpl}`);
              const snapshot = await ctx.initialized;
              assert.equal(snapshot.response.info.name, `interop-v2-${agentImpl}`);

              const session = await ctx.buildSession("/tmp").start();
              const ack = await session.prompt("stream 40");
              assert.match(ack.messageId, /^u-/);
              const text = await session.readTextUntilIdle(AbortSignal.timeout(20_000));
              assert.equal(text, Array.from({ length: 40 }, (_, i) => `chunk ${i};`).join(""));

              await session.prompt("permission");
              assert.equal(await session.readTextUntilIdle(AbortSignal.timeout(20_000)), "permission: selected allow");
              assert.equal(permissions.length, 1);
              assert.equal(permissions[0]!.title, "Edit a file?");
              assert.equal(permissions[0]!.subject?.type, "tool_call");

              await session.prompt("slow");
              await readUntil(
                session,
                (m) => m.kind === "session_update" && m.update.sessionUpdate === "agent_message_chunk",
              );
              await ctx.notify("session/cancel", { sessionId: session.sessionId });
              const afterCancel = await readUntil(session, (m) => m.kind === "stop");
              assert.equal((afterCancel.at(-1) as { stopReason?: unknown }).stopReason, "cancelled");

              await session.prompt("tool");
              const started = await readUntil(
                session,
                (m) => m.kind === "session_update" && m.update.sessionUpdate === "tool_call_update",
              );
              const toolCallId = (started.at(-1)!.update as { toolCallId: string }).toolCallId;
              assert.equal(session.canCancelToolCall(toolCallId), true);
              await session.cancelToolCall(toolCallId);
              assert.equal(await session.readTextUntilIdle(AbortSignal.timeout(20_000)), "tool cancelled");
              assert.equal(session.canCancelToolCall(toolCallId), false, "capabilities: null cleared it");
              await assert.rejects(session.cancelToolCall(toolCallId), TypeError);

              assert.deepEqual(await ctx.request("_ext/echo", { x: 1 }), { echoed: { x: 1 } });
              await ctx.request("session/close", { sessionId: session.sessionId });
              session.dispose();
            });
          } finally {
            await agent.stop();
          }

          const protocol = await loadV2Protocol();
          for (const side of ["agent", "client"] as const) {
            const { events, unparsable } = wireEvents(agent.wire, side);
            assert.deepEqual(unparsable, [], `${side} wrote lines that are not JSON`);
            const { violations, checked } = checkSent(protocol, events, side);
            assert.ok(checked > 10, `${side} sent ${checked} messages`);
            assert.deepEqual(
              violations,
              [],
              `${side} (${side === "agent" ? agentImpl : clientImpl}) sent off-schema messages`,
            );
          }
        },
      );
    });
  }
}
