/** JsonRpcConnection: the peer cancelling what it asked, closing (either side), and the tap. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { IncomingRequestContext } from "./incoming.js";
import { ConnectionClosedError } from "./local-errors.js";
import type { TapEvent } from "./tap.js";
import { setup, tick } from "./testing/connection-setup.js";

describe("JsonRpcConnection: cancellation of requests it receives", () => {
  test("$/cancel_request aborts the handler's signal and a handler that gives up answers -32800", async () => {
    let context!: IncomingRequestContext;
    const { link } = setup({
      request: (_m, _p, ctx) => {
        context = ctx;
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener("abort", () => reject(new Error("aborted"))),
        );
      },
    });
    link.inject({ jsonrpc: "2.0", id: 5, method: "slow" });
    link.inject({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 5 } });
    await link.waitForSent(1);
    assert.equal(context.signal.aborted, true);
    assert.deepEqual(link.sent[0], { jsonrpc: "2.0", id: 5, error: { code: -32800, message: "Request cancelled" } });
  });

  test(
    "a cancel before the handler looks at its signal still shows " + "as aborted; a handler may answer with a result",
    async () => {
      let release!: () => void;
      let context!: IncomingRequestContext;
      const { link } = setup({
        request: async (_m, _p, ctx) => {
          context = ctx;
          await new Promise<void>((r) => (release = r));
          return { partial: ctx.signal.aborted };
        },
      });
      link.inject({ jsonrpc: "2.0", id: 1, method: "slow" });
      link.inject({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 1 } });
      release();
      await link.waitForSent(1);
      assert.equal(context.signal.aborted, true);
      assert.deepEqual(link.sent[0], { jsonrpc: "2.0", id: 1, result: { partial: true } });
    },
  );

  test("a cancel for an unknown request is ignored", async () => {
    const { link, connection } = setup();
    link.inject({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 999 } });
    link.inject({ jsonrpc: "2.0", method: "$/cancel_request" });
    await tick();
    assert.equal(link.sent.length, 0);
    assert.equal(connection.isClosed, false);
  });
});

describe("JsonRpcConnection: closing", () => {
  test("close(reason) rejects every pending request with the cause, aborts handlers, closes the link", async () => {
    let handlerSignal!: AbortSignal;
    const { link, connection } = setup({
      request: (_m, _p, ctx) => {
        handlerSignal = ctx.signal;
        return new Promise(() => {});
      },
    });
    link.inject({ jsonrpc: "2.0", id: 1, method: "hang" });
    const a = connection.request("a");
    const b = connection.request("b");
    const cause = new Error("user quit");
    connection.close(cause);
    for (const call of [a, b]) {
      await assert.rejects(
        call,
        (e) => e instanceof ConnectionClosedError && e.cause === cause && /user quit/.test(e.message),
      );
    }
    assert.equal(handlerSignal.aborted, true);
    assert.equal(connection.signal.aborted, true);
    assert.equal(link.closedByEngine, true);
    await connection.closed;
    await assert.rejects(connection.request("later"), ConnectionClosedError);
    await assert.rejects(connection.notify("later"), ConnectionClosedError);
    assert.equal(link.sent.filter((m) => "id" in m && !("method" in m)).length, 0, "no reply after close");
  });

  test("the peer going away rejects pending requests with a ConnectionClosedError that says so", async () => {
    const { link, connection } = setup();
    const call = connection.request("x");
    link.endInput();
    await assert.rejects(call, (e) => e instanceof ConnectionClosedError && /end of input/.test(e.message));
    const second = setup();
    const call2 = second.connection.request("x");
    const broken = new Error("EPIPE");
    second.link.endInput(broken);
    await assert.rejects(call2, (e) => e instanceof ConnectionClosedError && e.cause === broken);
  });
});

describe("JsonRpcConnection: tap", () => {
  test("sees every message in both directions with a timestamp, and problems", async () => {
    const { link, connection } = setup({ request: () => ({ ok: true }) });
    const events: TapEvent[] = [];
    const stop = connection.tap((e) => events.push(e));
    const before = Date.now() - 1;
    link.inject({ jsonrpc: "2.0", id: 1, method: "m" });
    void connection.notify("n", { a: 1 });
    link.injectProblem({ kind: "parse", detail: "x", preview: "x", looksLikeJson: false });
    await link.waitForSent(2);
    stop();
    void connection.notify("after");
    assert.deepEqual(
      events.map((e) => e.direction),
      ["in", "out", "out", "in"],
    );
    assert.ok(events.every((e) => e.time >= before && e.time <= Date.now() + 1));
    assert.ok("problem" in events[3]!);
  });

  test("a tap that throws is removed and logged, and messages still flow", async () => {
    const { link, connection, logger } = setup({ request: () => 1 });
    connection.tap(() => {
      throw new Error("tap bug");
    });
    link.inject({ jsonrpc: "2.0", id: 1, method: "m" });
    await link.waitForSent(1);
    assert.ok(logger.lines.some((l) => /tap listener/.test(l.message)));
  });
});
