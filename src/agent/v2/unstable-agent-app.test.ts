import assert from "node:assert/strict";
import { test } from "node:test";
import * as officialUnstable from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { unstableV2Client } from "../../client/v2/unstable-client-app.js";
import { agent } from "./agent-app.js";
import { unstableV2Agent } from "./unstable-agent-app.js";

const info = { name: "c", version: "1" };

test(
  "the v2 unstable apps speak the unstable methods " + "(session/fork), which the stable v2 apps do not know",
  async () => {
    assert.throws(
      () => agent().onRequest("session/fork" as "initialize", () => ({ protocolVersion: 2, info })),
      /Unknown ACP request method 'session\/fork'/,
    );
    const forks: unknown[] = [];
    const app = unstableV2Agent()
      .onRequest("initialize", () => ({
        protocolVersion: 2,
        info: { name: "a", version: "1" },
        capabilities: { session: { fork: {} } },
      }))
      .onRequest("session/fork", ({ params }) => {
        forks.push(params);
        return { sessionId: `${params.sessionId}-fork` };
      });
    await unstableV2Client().connectWith(app, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 2, info });
      assert.equal((await ctx.request("session/fork", { sessionId: "s1", cwd: "/work" })).sessionId, "s1-fork");
      await assert.rejects(
        ctx.request("session/fork", { sessionId: 5, cwd: "/work" } as never),
        (error: unknown) => (error as { code?: number }).code === -32602,
      );
    });
    assert.deepEqual(forks, [{ sessionId: "s1", cwd: "/work" }]);
  },
);

test("an unstable v2 agent serves the official unstable client", async () => {
  const app = unstableV2Agent()
    .onRequest("initialize", () => ({
      protocolVersion: 2,
      info: { name: "a", version: "1" },
      capabilities: { session: { fork: {} } },
    }))
    .onRequest("session/fork", ({ params }) => ({ sessionId: `${params.sessionId}-fork` }));
  const toAgent = new TransformStream();
  const toClient = new TransformStream();
  app.connect({ readable: toAgent.readable, writable: toClient.writable });
  const forked = await officialUnstable
    .client()
    .connectWith({ readable: toClient.readable, writable: toAgent.writable }, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 2, info });
      return ctx.request("session/fork", { sessionId: "s1", cwd: "/work" });
    });
  assert.equal(forked.sessionId, "s1-fork");
});
