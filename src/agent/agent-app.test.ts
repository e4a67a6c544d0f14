import assert from "node:assert/strict";
import { test } from "node:test";
import { ConnectionClosedError, RequestError } from "../jsonrpc/index.js";
import { createMemoryPair } from "../transports/memory.js";
import { client } from "../client/client-app.js";
import { agent, AgentApp } from "./agent-app.js";
import { methods } from "../acp/methods.js";
import { demoAgent, initializeParams } from "../client/testing/demo-apps.js";

const isCode = (code: number) => (error: unknown) => error instanceof RequestError && error.code === code;

test(
  "the initialization gate: with an initialize handler, other " + "requests get -32600 until initialize succeeded",
  async () => {
    await client().connectWith(demoAgent(), async (ctx) => {
      await assert.rejects(ctx.request("session/new", { cwd: "/work", mcpServers: [] }), (error: unknown) => {
        assert.ok(isCode(-32600)(error));
        assert.match((error as Error).message, /session\/new/);
        return true;
      });
      await ctx.request("initialize", initializeParams);
      assert.equal((await ctx.request("session/new", { cwd: "/work", mcpServers: [] })).sessionId, "session-1");
    });
  },
);

test("without an initialize handler there is no gate", async () => {
  const app = agent().onRequest("session/new", () => ({ sessionId: "s" }));
  await client().connectWith(app, async (ctx) => {
    assert.equal((await ctx.request("session/new", { cwd: "/", mcpServers: [] })).sessionId, "s");
  });
});

test("invalid params get -32602 with the failing path in data; unknown methods get -32601", async () => {
  await client({ validateOutgoing: false }).connectWith(demoAgent(), async (ctx) => {
    await ctx.request("initialize", initializeParams);
    await assert.rejects(ctx.request("session/new", { cwd: 42, mcpServers: [] } as never), (error: unknown) => {
      assert.ok(isCode(-32602)(error));
      assert.match(JSON.stringify((error as RequestError).data), /cwd/);
      return true;
    });
    await assert.rejects(ctx.request("session/list", {}), isCode(-32601));
    await assert.rejects(ctx.request("_acme/unknown", {}), isCode(-32601));
  });
});

test("a request fallback gets what no handler takes, with the actual method and raw params", async () => {
  const app = agent().onRequest("*", ({ method, params }) => ({ method, params }));
  await client().connectWith(app, async (ctx) => {
    assert.deepEqual(await ctx.request("_acme/anything", { a: 1 }), { method: "_acme/anything", params: { a: 1 } });
  });
});

test("registration errors: unknown method without a parser, wildcard with a parser, two fallbacks", () => {
  assert.throws(
    () => agent().onRequest("_acme/x" as "initialize", () => ({ protocolVersion: 1 })),
    /Unknown ACP request method '_acme\/x'/,
  );
  assert.throws(
    () => agent().onNotification("session/update" as "session/cancel", () => {}),
    /Unknown ACP notification method/,
  );
  assert.throws(
    () =>
      agent().onRequest(
        "*",
        (raw) => raw,
        () => ({}),
      ),
    /Wildcard handlers receive raw params/,
  );
  assert.throws(
    () =>
      agent()
        .onRequest("*", () => ({}))
        .onRequest("*", () => ({})),
    /already registered/,
  );
  assert.throws(
    () => agent().onRequest("session/fork" as "initialize", () => ({ protocolVersion: 1 })),
    /Unknown ACP request method/,
  );
  assert.ok(agent({ unstable: true }).onRequest("session/fork", () => ({ sessionId: "f" })) instanceof AgentApp);
});

test("connectWith runs op, then closes the connection", async () => {
  const app = demoAgent();
  let signal: AbortSignal | undefined;
  app.onConnect((connection) => void (signal = connection.signal));
  const value = await client().connectWith(app, async (ctx) => {
    await ctx.request("initialize", initializeParams);
    return 7;
  });
  assert.equal(value, 7);
  assert.equal(signal?.aborted, true);
});

test("connectWith rejects with the close reason when the connection closes before op settles", async () => {
  let closeAgent: ((error: Error) => void) | undefined;
  const app = agent()
    .onConnect((connection) => void (closeAgent = (error) => connection.close(error)))
    .onRequest("session/new", () => {
      setTimeout(() => closeAgent?.(new Error("agent went away")), 1);
      return new Promise(() => {});
    });
  await assert.rejects(
    client().connectWith(app, (ctx) => ctx.request("session/new", { cwd: "/", mcpServers: [] })),
    (error: unknown) => error instanceof ConnectionClosedError && /agent went away/.test(error.message),
  );
});

test(
  "an onConnect handler runs before the first message and can " + "call the peer; a throw closes the connection",
  async () => {
    const notes: string[] = [];
    const app = agent().onConnect(async ({ client: ctx }) => {
      await ctx.notify("_acme/hello", { from: "agent" });
    });
    const appClient = client().onNotification(
      "_acme/hello",
      (raw) => raw as { from: string },
      ({ params }) => void notes.push(params.from),
    );
    await appClient.connectWith(app, async () => {
      while (notes.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    });
    assert.deepEqual(notes, ["agent"]);

    const failing = agent().onConnect(() => {
      throw new Error("refused");
    });
    await assert.rejects(
      client().connectWith(failing, () => "never"),
      /refused/,
    );
    const [mine] = createMemoryPair();
    assert.throws(() => failing.connect(mine), /refused/);
    const rejecting = agent().onConnect(() => Promise.reject(new Error("later")));
    const connection = rejecting.connect(createMemoryPair()[0]);
    await connection.closed;
    assert.match(String((connection.signal.reason as Error).message), /later/);
  },
);

test("an app cannot connect to an app of its own side; connect() refuses what is not a stream", () => {
  assert.throws(() => agent().connect(agent() as never), /other side/);
  assert.throws(() => agent().connect({} as never), /Stream/);
});

test("code written for the official 2.x API: methods constants, a zod parser for an extension method", async () => {
  const { z } = await import("zod");
  const app = agent({ name: "zod-agent" })
    .onRequest(methods.agent.initialize, ({ params }) => ({ protocolVersion: params.protocolVersion }))
    .onRequest(methods.agent.session.new, () => ({ sessionId: "z" }))
    .onRequest("_acme/sum", z.object({ values: z.array(z.number()) }), ({ params }) => ({
      sum: params.values.reduce((a, b) => a + b, 0),
    }));
  await client().connectWith(app, async (ctx) => {
    await ctx.request(methods.agent.initialize, initializeParams);
    assert.deepEqual(await ctx.request("_acme/sum", { values: [1, 2, 3] }), { sum: 6 });
    await assert.rejects(ctx.request("_acme/sum", { values: ["x"] }), (error: unknown) => {
      assert.ok(isCode(-32602)(error));
      return true;
    });
  });
});
