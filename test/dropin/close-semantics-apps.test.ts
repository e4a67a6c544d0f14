/**
 * Fault 8 of issue 8 for the 2.x apps: what code written for `client()` / `agent()` of the official SDK 2.4.0
 * observes when a connection ends. Pending `ctx.request`s when the input ends, fails or a write fails; `closed`,
 * `signal` and later calls; `connectWith`'s result when `op` settles first, when the connection closes first, and
 * when an `onConnect` handler fails; the handlers' signals; an active session's updates; two apps connected in memory.
 * Every scenario runs on acpkit and on 2.4.0 and asserts only what both do; acpkit's deliberate differences (a
 * `ConnectionClosedError` that wraps the reason) are checked on acpkit alone in close-differences-apps.test.ts, and
 * listed in MIGRATING.md.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as official from "@agentclientprotocol/sdk";
import * as acpkit from "../../src/entries/index.js";
import {
  INITIALIZE,
  closedMessage,
  manualReadable,
  messageStream,
  settle,
  unhandledDuring,
} from "./support/app-streams.js";

type V2 = typeof official;
const impls: Array<[string, V2]> = [
  // A cast: the official classes have private members, which TypeScript compares nominally (the shapes are checked in
  // type-shapes.test.ts).
  ["acpkit", acpkit as unknown as V2],
  ["official 2.4.0", official],
];

for (const [name, sdk] of impls) {
  describe(`2.x apps: close and error semantics (${name})`, () => {
    test(
      "the input ending: a pending request rejects with 'ACP connection closed', closed resolves, signal " +
        "aborts, later calls reject",
      async () => {
        const input = manualReadable<Uint8Array>();
        const connection = sdk.client().connect(sdk.ndJsonStream(new WritableStream(), input.readable));
        assert.equal(connection.signal.aborted, false);
        const pending = connection.agent.request(sdk.methods.agent.initialize, INITIALIZE);
        input.controller.close();
        await assert.rejects(pending, closedMessage);
        await connection.closed;
        assert.equal(connection.signal.aborted, true);
        assert.ok(closedMessage(connection.signal.reason));
        await assert.rejects(connection.agent.request(sdk.methods.agent.initialize, INITIALIZE), closedMessage);
        await assert.rejects(
          connection.agent.notify(sdk.methods.agent.session.cancel, { sessionId: "s" }),
          closedMessage,
        );
      },
    );

    test(
      "requests and notifications never awaited: no unhandled " + "rejection when the connection closes under them",
      async () => {
        const unhandled = await unhandledDuring(async () => {
          const input = manualReadable<Uint8Array>();
          const connection = sdk.client().connect(sdk.ndJsonStream(new WritableStream(), input.readable));
          void connection.agent.request(sdk.methods.agent.initialize, INITIALIZE);
          void connection.agent.request(sdk.methods.agent.session.new, { cwd: "/", mcpServers: [] });
          input.controller.close();
          await connection.closed;
          void connection.agent.request(sdk.methods.agent.initialize, INITIALIZE);
          void connection.agent.notify(sdk.methods.agent.session.cancel, { sessionId: "s" });
        });
        assert.deepEqual(unhandled, []);
      },
    );

    test("the input failing: a pending request rejects with the transport's message", async () => {
      const input = manualReadable<Uint8Array>();
      const connection = sdk.client().connect(sdk.ndJsonStream(new WritableStream(), input.readable));
      const pending = connection.agent.request(sdk.methods.agent.initialize, INITIALIZE);
      input.controller.error(new Error("process exited with code 1"));
      await assert.rejects(pending, /process exited with code 1/);
      await connection.closed;
      assert.equal(connection.signal.aborted, true);
      assert.match(String((connection.signal.reason as Error).message), /process exited with code 1/);
    });

    test(
      "a failing write: the request and a notification reject with " + "the write's error, and the connection closes",
      async () => {
        const failing = messageStream(() => Promise.reject(new Error("write failed")));
        const connection = sdk.client().connect(failing.stream);
        await assert.rejects(connection.agent.request(sdk.methods.agent.initialize, INITIALIZE), /write failed/);
        await connection.closed;
        assert.equal(connection.signal.aborted, true);

        const again = sdk.client().connect(messageStream(() => Promise.reject(new Error("write failed"))).stream);
        await assert.rejects(again.agent.notify(sdk.methods.agent.session.cancel, { sessionId: "s" }), /write failed/);
        await again.closed;
      },
    );

    test(
      "a failing byte output (ndJsonStream): the request rejects with the write's message, the connection " +
        "closes, later sends reject",
      async () => {
        const failingOutput = () =>
          new WritableStream<Uint8Array>({ write: () => Promise.reject(new Error("EPIPE here")) });
        const connection = sdk
          .client()
          .connect(sdk.ndJsonStream(failingOutput(), manualReadable<Uint8Array>().readable));
        await assert.rejects(connection.agent.request(sdk.methods.agent.initialize, INITIALIZE), /EPIPE here/);
        await connection.closed;
        await assert.rejects(
          connection.agent.notify(sdk.methods.agent.session.cancel, { sessionId: "s" }),
          /EPIPE here/,
        );
      },
    );

    test(
      "close() with no reason: pending requests reject with 'ACP " + "connection closed'; close is idempotent",
      async () => {
        const { stream } = messageStream();
        const connection = sdk.client().connect(stream);
        const pending = connection.agent.request(sdk.methods.agent.initialize, INITIALIZE);
        connection.close();
        connection.close(new Error("a second close changes nothing"));
        await assert.rejects(pending, closedMessage);
        await connection.closed;
        assert.ok(closedMessage(connection.signal.reason));
      },
    );

    test(
      "close(reason): pending requests reject with an error carrying the reason's message; the input is " + "cancelled",
      async () => {
        const { stream, input } = messageStream();
        const connection = sdk.client().connect(stream);
        const pending = connection.agent.request(sdk.methods.agent.initialize, INITIALIZE);
        connection.close(new Error("user quit"));
        await assert.rejects(pending, /user quit/);
        await connection.closed;
        await settle();
        assert.notEqual(input.cancelled(), "not cancelled", "the input stream is cancelled on close");
      },
    );

    test("connectWith: op's value when op settles first, then the connection is closed", async () => {
      const { stream, input, sent } = messageStream();
      let context!: official.ClientContext;
      const value = await sdk.client().connectWith(stream, async (ctx) => {
        context = ctx;
        const answer = ctx.request(sdk.methods.agent.initialize, INITIALIZE);
        await settle();
        const id = (sent[0] as { id: number }).id;
        input.controller.enqueue({ jsonrpc: "2.0", id, result: { protocolVersion: 1 } });
        return (await answer).protocolVersion;
      });
      assert.equal(value, 1);
      await assert.rejects(context.request(sdk.methods.agent.initialize, INITIALIZE), closedMessage);
    });

    test("connectWith: op's own rejection, the same error, and the connection closed", async () => {
      const { stream, input } = messageStream();
      const mine = new Error("op failed");
      await assert.rejects(
        sdk.client().connectWith(stream, async () => {
          throw mine;
        }),
        (error: unknown) => error === mine,
      );
      await settle();
      assert.notEqual(input.cancelled(), "not cancelled");
      const sync = new Error("thrown before any await");
      await assert.rejects(
        sdk.client().connectWith(messageStream().stream, () => {
          throw sync;
        }),
        (error: unknown) => error === sync,
      );
    });

    test(
      "connectWith: the input ending before op settles rejects with 'ACP connection closed', even if op ignores " +
        "the connection",
      async () => {
        const awaiting = messageStream();
        const first = sdk
          .client()
          .connectWith(awaiting.stream, (ctx) => ctx.request(sdk.methods.agent.initialize, INITIALIZE));
        awaiting.input.controller.close();
        await assert.rejects(first, closedMessage);

        const ignoring = messageStream();
        let release!: () => void;
        const second = sdk
          .client()
          .connectWith(ignoring.stream, () => new Promise<string>((resolve) => (release = () => resolve("too late"))));
        ignoring.input.controller.close();
        await assert.rejects(second, closedMessage);
        release();
      },
    );

    test("connectWith: the input failing before op settles rejects with the transport's message", async () => {
      const { stream, input } = messageStream();
      const result = sdk.client().connectWith(stream, () => new Promise(() => {}));
      input.controller.error(new Error("process exited with code 7"));
      await assert.rejects(result, /process exited with code 7/);
    });

    test("an onConnect handler that throws: connect throws that error and the connection is closed", async () => {
      const thrown = new Error("onConnect failed");
      let handle!: official.ClientConnection;
      const app = sdk.client().onConnect((connection) => {
        handle = connection;
        throw thrown;
      });
      assert.throws(
        () => app.connect(messageStream().stream),
        (error: unknown) => error === thrown,
      );
      assert.equal(handle.signal.aborted, true);
      await handle.closed;
    });

    test(
      "connectWith and an onConnect handler that throws: awaiting connectWith sees that error, and op never " + "runs",
      async () => {
        const thrown = new Error("onConnect failed");
        const app = sdk.client().onConnect(() => {
          throw thrown;
        });
        let ran = false;
        let caught: unknown;
        try {
          await app.connectWith(messageStream().stream, () => (ran = true));
        } catch (error) {
          caught = error;
        }
        assert.equal(caught, thrown);
        assert.equal(ran, false);
      },
    );

    test("an onConnect handler that rejects: the connection closes with a reason carrying its message", async () => {
      const app = sdk.client().onConnect(async () => {
        await Promise.resolve();
        throw new Error("onConnect rejected");
      });
      const connection = app.connect(messageStream().stream);
      await connection.closed;
      assert.match((connection.signal.reason as Error).message, /onConnect rejected/);
      await assert.rejects(connection.agent.request(sdk.methods.agent.initialize, INITIALIZE), /onConnect rejected/);
    });

    test(
      "an agent app: the input ending aborts the signal of a request in flight and rejects its pending call to " +
        "the client",
      async () => {
        const { stream, input, sent } = messageStream();
        const seen: { handlerSignal?: AbortSignal; permission?: Promise<unknown> } = {};
        let entered!: () => void;
        const inHandler = new Promise<void>((resolve) => (entered = resolve));
        const connection = sdk
          .agent()
          .onRequest(sdk.methods.agent.session.prompt, async ({ params, signal, client }) => {
            seen.handlerSignal = signal;
            seen.permission = client.request(sdk.methods.client.session.requestPermission, {
              sessionId: params.sessionId,
              toolCall: { toolCallId: "t1" },
              options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
            });
            seen.permission.catch(() => {});
            entered();
            return new Promise<never>(() => {});
          })
          .connect(stream);
        input.controller.enqueue({
          jsonrpc: "2.0",
          id: 1,
          method: "session/prompt",
          params: { sessionId: "s", prompt: [] },
        });
        await inHandler;
        input.controller.close();
        await connection.closed;
        assert.equal(seen.handlerSignal?.aborted, true);
        assert.ok(closedMessage(seen.handlerSignal?.reason));
        await assert.rejects(seen.permission!, closedMessage);
        assert.ok(!sent.some((message) => (message as { id?: unknown }).id === 1), "nothing is answered once closed");
        await assert.rejects(
          connection.client.notify(sdk.methods.client.session.update, {
            sessionId: "s",
            update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "late" } },
          }),
          closedMessage,
        );
      },
    );

    test("an active session: nextUpdate yields what was queued, then rejects once the connection closed", async () => {
      const { stream, input, sent } = messageStream();
      const connection = sdk.client().connect(stream);
      const starting = connection.agent.buildSession("/work").start();
      await settle();
      input.controller.enqueue({ jsonrpc: "2.0", id: (sent[0] as { id: number }).id, result: { sessionId: "s1" } });
      const session = await starting;
      input.controller.enqueue({
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: "s1",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "queued" } },
        },
      });
      await settle();
      input.controller.close();
      await connection.closed;
      const first = (await session.nextUpdate()) as { kind: string; update?: { content?: { text?: string } } };
      assert.equal(first.kind, "session_update");
      assert.equal(first.update?.content?.text, "queued");
      await assert.rejects(session.nextUpdate(), closedMessage);
    });

    test(
      "two apps in memory: closing the client's connection closes the agent's, and connectWith closes both when " +
        "op is done",
      async () => {
        let agentSide!: official.AgentConnection;
        const agentApp = sdk
          .agent()
          .onConnect((connection) => void (agentSide = connection))
          .onRequest(sdk.methods.agent.initialize, () => ({ protocolVersion: 1 }));
        const connection = sdk.client().connect(agentApp);
        assert.equal((await connection.agent.request(sdk.methods.agent.initialize, INITIALIZE)).protocolVersion, 1);
        connection.close();
        await agentSide.closed;
        assert.equal(agentSide.signal.aborted, true);

        const value = await sdk
          .client()
          .connectWith(
            agentApp,
            async (ctx) => (await ctx.request(sdk.methods.agent.initialize, INITIALIZE)).protocolVersion,
          );
        assert.equal(value, 1);
        await agentSide.closed;
        assert.equal(agentSide.signal.aborted, true);
      },
    );

    test("two apps in memory: the agent closing with a reason ends the client's pending request", async () => {
      let agentSide!: official.AgentConnection;
      const agentApp = sdk
        .agent()
        .onConnect((connection) => void (agentSide = connection))
        .onRequest(sdk.methods.agent.initialize, () => new Promise<never>(() => {}));
      const connection = sdk.client().connect(agentApp);
      const pending = connection.agent.request(sdk.methods.agent.initialize, INITIALIZE);
      await settle();
      agentSide.close(new Error("agent shutting down"));
      await assert.rejects(pending, (error: unknown) => error instanceof Error);
      await connection.closed;
      assert.equal(connection.signal.aborted, true);
    });
  });
}
