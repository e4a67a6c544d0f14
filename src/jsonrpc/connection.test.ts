import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  InvalidResponseError,
  MessageTooLargeError,
  RequestTimeoutError,
  UnserializableValueError,
} from "./local-errors.js";
import { RequestError } from "./request-error.js";
import { setup, tick } from "./testing/connection-setup.js";

describe("JsonRpcConnection: requests it receives", () => {
  test("answers each request exactly once with the handler's result, sync or async", async () => {
    const { link } = setup({
      request: (method, params) => (method === "sync" ? { echo: params } : Promise.resolve({ later: true })),
    });
    link.inject({ jsonrpc: "2.0", id: 1, method: "sync", params: { a: 1 } });
    link.inject({ jsonrpc: "2.0", id: "two", method: "async" });
    await link.waitForSent(2);
    await tick();
    assert.deepEqual(link.sent, [
      { jsonrpc: "2.0", id: 1, result: { echo: { a: 1 } } },
      { jsonrpc: "2.0", id: "two", result: { later: true } },
    ]);
  });

  test("a handler returning nothing answers result null", async () => {
    const { link } = setup({ request: () => undefined });
    link.inject({ jsonrpc: "2.0", id: 3, method: "x" });
    await link.waitForSent(1);
    assert.deepEqual(link.sent[0], { jsonrpc: "2.0", id: 3, result: null });
  });

  test(
    "a thrown RequestError goes out as it is; any other error is -32603 with its message only (no stack), as " +
      "the official SDK does",
    async () => {
      const { link, logger } = setup({
        request: (method) => {
          if (method === "wire") throw new RequestError(-32002, "Resource not found: /x", { uri: "/x" });
          if (method === "async") return Promise.reject(new Error("secret path /home/me/.ssh"));
          throw new Error("secret token abc");
        },
      });
      link.inject({ jsonrpc: "2.0", id: 1, method: "wire" });
      link.inject({ jsonrpc: "2.0", id: 2, method: "boom" });
      link.inject({ jsonrpc: "2.0", id: 3, method: "async" });
      await link.waitForSent(3);
      assert.deepEqual(link.sent[0], {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32002, message: "Resource not found: /x", data: { uri: "/x" } },
      });
      assert.deepEqual(link.sent[1], {
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32603, message: "Internal error", data: { details: "secret token abc" } },
      });
      assert.deepEqual(link.sent[2], {
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32603, message: "Internal error", data: { details: "secret path /home/me/.ssh" } },
      });
      assert.doesNotMatch(JSON.stringify(link.sent), /connection\.test|at /);
      assert.ok(logger.lines.some((l) => l.level === "error" && /secret token/.test(String(l.fields?.message))));
    },
  );

  test("a result that cannot be serialized fails only that request, with -32603", async () => {
    const { link, connection } = setup({ request: (method) => (method === "bad" ? { n: 10n } : { ok: true }) });
    link.inject({ jsonrpc: "2.0", id: 1, method: "bad" });
    link.inject({ jsonrpc: "2.0", id: 2, method: "good" });
    await link.waitForSent(2);
    assert.equal((link.sent[0] as { error: { code: number } }).error.code, -32603);
    assert.match((link.sent[0] as { error: { message: string } }).error.message, /cannot be serialized/);
    assert.deepEqual(link.sent[1], { jsonrpc: "2.0", id: 2, result: { ok: true } });
    assert.equal(connection.isClosed, false);
  });

  test("unknown methods get -32601 (from the dispatcher), including _-prefixed ones", async () => {
    const { link } = setup();
    link.inject({ jsonrpc: "2.0", id: 9, method: "_vendor/thing" });
    await link.waitForSent(1);
    assert.equal((link.sent[0] as { error: { code: number } }).error.code, -32601);
  });

  test("a request id reused while the first is running is refused, and the first still answers", async () => {
    let release!: (v: unknown) => void;
    const { link } = setup({ request: () => new Promise((r) => (release = r)) });
    link.inject({ jsonrpc: "2.0", id: 1, method: "slow" });
    link.inject({ jsonrpc: "2.0", id: 1, method: "slow" });
    await link.waitForSent(1);
    assert.equal((link.sent[0] as { error: { code: number } }).error.code, -32600);
    release({ done: true });
    await link.waitForSent(2);
    assert.deepEqual(link.sent[1], { jsonrpc: "2.0", id: 1, result: { done: true } });
  });
});

describe("JsonRpcConnection: bad input is answered by the book and never fatal", () => {
  const cases: Array<[string, unknown, unknown]> = [
    ["a number", 42, null],
    ["a string", "hello", null],
    ["null", null, null],
    ["a batch", [{ jsonrpc: "2.0", id: 1, method: "x" }], null],
    ["an empty batch", [], null],
    ["a wrong jsonrpc version", { jsonrpc: "1.0", id: 5, method: "x" }, 5],
    ["a missing jsonrpc", { id: 6, method: "x" }, 6],
    ["a non-string method", { jsonrpc: "2.0", id: 7, method: 12 }, 7],
    ["an object id", { jsonrpc: "2.0", id: { a: 1 }, method: "x" }, null],
    ["string params", { jsonrpc: "2.0", id: 8, method: "x", params: "p" }, 8],
    ["neither method nor id", { jsonrpc: "2.0", foo: 1 }, null],
  ];
  for (const [name, value, id] of cases) {
    test(`${name} gets -32600 with id ${JSON.stringify(id)}`, async () => {
      const { link, connection } = setup({ request: () => ({ ok: true }) });
      link.inject(value);
      link.inject({ jsonrpc: "2.0", id: "after", method: "ok" });
      await link.waitForSent(2);
      const reply = link.sent[0] as { id: unknown; error: { code: number; message: string } };
      assert.equal(reply.id, id);
      assert.equal(reply.error.code, -32600);
      assert.ok(reply.error.message.length > "Invalid request".length, "the message says what was wrong");
      assert.deepEqual(link.sent[1], { jsonrpc: "2.0", id: "after", result: { ok: true } });
      assert.equal(connection.isClosed, false);
    });
  }

  test("malformed JSON gets -32700 with id null; a non-JSON log line is only logged", async () => {
    const { link, logger } = setup();
    link.injectProblem({
      kind: "parse",
      detail: "Unexpected end of JSON input",
      preview: '{"jsonrpc":',
      looksLikeJson: true,
    });
    link.injectProblem({
      kind: "parse",
      detail: "Unexpected token",
      preview: "Loading model...",
      looksLikeJson: false,
    });
    await tick();
    assert.equal(link.sent.length, 1);
    assert.deepEqual((link.sent[0] as { id: unknown }).id, null);
    assert.equal((link.sent[0] as { error: { code: number } }).error.code, -32700);
    assert.ok(logger.lines.some((l) => l.level === "warn" && l.fields?.line === "Loading model..."));
  });

  test("an oversized request is refused by id; an oversized response rejects its pending call", async () => {
    const { link, connection } = setup();
    link.injectProblem({
      kind: "too_large",
      bytes: 9_000_000,
      limit: 1000,
      head: '{"jsonrpc":"2.0","id":41,"method":"fs/read_text_file","params":{"id":7',
    });
    await link.waitForSent(1);
    assert.equal((link.sent[0] as { id: unknown }).id, 41);
    assert.equal((link.sent[0] as { error: { code: number } }).error.code, -32600);
    const call = connection.request("big");
    const id = (link.sent[1] as { id: number }).id;
    link.injectProblem({
      kind: "too_large",
      bytes: 9_000_000,
      limit: 1000,
      head: `{"jsonrpc":"2.0","id":${id},"result":{"content":"aaaa`,
    });
    await assert.rejects(call, (error) => error instanceof MessageTooLargeError && error.messageBytes === 9_000_000);
    assert.equal(connection.isClosed, false);
  });

  test("a malformed response rejects its call with InvalidResponseError instead of hanging", async () => {
    const { link, connection } = setup();
    const call = connection.request("m");
    link.inject({ jsonrpc: "2.0", id: 0, result: 1, error: { code: 1, message: "x" } });
    await assert.rejects(call, InvalidResponseError);
    const second = connection.request("m");
    link.inject({ jsonrpc: "2.0", id: 1 });
    await assert.rejects(second, /neither a result nor a well-formed error/);
  });

  test("a notification handler that throws is logged and the connection carries on", async () => {
    const { link, logger, connection } = setup({
      notification: () => {
        throw new Error("handler bug");
      },
      request: () => ({ ok: 1 }),
    });
    link.inject({ jsonrpc: "2.0", method: "note", params: { secret: "s3cr3t" } });
    link.inject({ jsonrpc: "2.0", id: 1, method: "x" });
    await link.waitForSent(1);
    assert.equal(connection.isClosed, false);
    const line = logger.lines.find((l) => l.level === "error")!;
    assert.equal(line.fields?.method, "note");
    assert.doesNotMatch(JSON.stringify(logger.lines), /s3cr3t/);
  });
});

describe("JsonRpcConnection: requests it sends", () => {
  test("resolves with the result, rejects with the peer's RequestError", async () => {
    const { link, connection } = setup();
    const ok = connection.request("a", { x: 1 });
    const bad = connection.request("b");
    assert.deepEqual(link.sent, [
      { jsonrpc: "2.0", id: 0, method: "a", params: { x: 1 } },
      { jsonrpc: "2.0", id: 1, method: "b" },
    ]);
    link.inject({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "nope", data: { method: "b" } } });
    link.inject({ jsonrpc: "2.0", id: 0, result: { y: 2 } });
    assert.deepEqual(await ok, { y: 2 });
    await assert.rejects(
      bad,
      (e) => e instanceof RequestError && e.code === -32601 && (e.data as { method: string }).method === "b",
    );
  });

  test("a notification that arrived before a response is delivered before the response resolves", async () => {
    const seen: string[] = [];
    const { link, connection } = setup({ notification: (method) => void seen.push(method) });
    const call = connection.request("prompt").then(() => seen.push("response"));
    link.inject({ jsonrpc: "2.0", method: "update1" });
    link.inject({ jsonrpc: "2.0", method: "update2" });
    link.inject({ jsonrpc: "2.0", id: 0, result: {} });
    link.inject({ jsonrpc: "2.0", method: "update3" });
    await call;
    // Dispatch is synchronous and in order; the response's continuation runs after everything delivered with it.
    assert.deepEqual(seen, ["update1", "update2", "update3", "response"]);
  });

  test("onResponse runs synchronously at the response's place in the stream, for results and errors", async () => {
    const seen: string[] = [];
    const { link, connection } = setup({ notification: (method) => void seen.push(method) });
    const ok = connection.request("a", undefined, { onResponse: () => seen.push("response a") });
    const bad = connection.request("b", undefined, { onResponse: () => seen.push("response b") });
    link.inject({ jsonrpc: "2.0", method: "before" });
    link.inject({ jsonrpc: "2.0", id: 0, result: 1 });
    link.inject({ jsonrpc: "2.0", id: 1, error: { code: 1, message: "no" } });
    link.inject({ jsonrpc: "2.0", method: "after" });
    assert.deepEqual(seen, ["before", "response a", "response b", "after"]);
    assert.equal(await ok, 1);
    await assert.rejects(bad, RequestError);
  });

  test("an unserializable value fails only that call; the next one goes out", async () => {
    const { link, connection } = setup();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    await assert.rejects(connection.request("x", { n: 1n }), UnserializableValueError);
    await assert.rejects(connection.notify("y", cycle), UnserializableValueError);
    const ok = connection.request("z");
    link.inject({ jsonrpc: "2.0", id: (link.sent.at(-1) as { id: number }).id, result: "fine" });
    assert.equal(await ok, "fine");
  });

  test("the parser checks results: an invalid one rejects with InvalidResponseError naming the method", async () => {
    const { link, connection } = setup();
    const call = connection.request("session/new", {}, undefined, (raw) => {
      if (typeof raw !== "object" || raw === null) throw new Error("expected object at $");
      return raw;
    });
    link.inject({ jsonrpc: "2.0", id: 0, result: 5 });
    await assert.rejects(
      call,
      (e) => e instanceof InvalidResponseError && e.method === "session/new" && /expected object/.test(e.message),
    );
  });

  test("cancelling sends $/cancel_request and still settles with the peer's answer", async () => {
    const { link, connection } = setup();
    const controller = new AbortController();
    const call = connection.request("slow", undefined, { cancellationSignal: controller.signal });
    controller.abort();
    assert.deepEqual(link.sent[1], { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 0 } });
    link.inject({ jsonrpc: "2.0", id: 0, error: { code: -32800, message: "Request cancelled" } });
    await assert.rejects(call, (e) => e instanceof RequestError && e.code === -32800);
  });

  test(
    "stopWaitingOnCancel rejects at once; an already-aborted " + "signal still sends the request, then the cancel",
    async () => {
      const { link, connection } = setup();
      const controller = new AbortController();
      const call = connection.request("slow", undefined, { signal: controller.signal, stopWaitingOnCancel: true });
      controller.abort("user pressed stop");
      await assert.rejects(
        call,
        (e) => e instanceof RequestError && e.code === -32800 && e.data === "user pressed stop",
      );
      assert.equal(connection.pendingRequestCount, 0);
      const early = connection.request("ask", undefined, { signal: AbortSignal.abort() });
      await Promise.resolve();
      const [request, cancel] = link.sent.slice(-2) as Array<{ id?: number; method: string; params?: unknown }>;
      assert.equal(request!.method, "ask");
      assert.deepEqual(cancel, { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: request!.id } });
      link.inject({ jsonrpc: "2.0", id: request!.id, result: { outcome: { outcome: "cancelled" } } });
      assert.deepEqual(await early, { outcome: { outcome: "cancelled" } });
    },
  );

  test(
    "a timeout rejects with RequestTimeoutError, sends " + "$/cancel_request, and ignores the late response",
    async () => {
      const { link, connection, logger } = setup({}, { requestTimeoutMs: 20 });
      const call = connection.request("session/prompt");
      await assert.rejects(
        call,
        (e) => e instanceof RequestTimeoutError && e.timeoutMs === 20 && /session\/prompt/.test(e.message),
      );
      assert.deepEqual(link.sent[1], { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 0 } });
      link.inject({ jsonrpc: "2.0", id: 0, result: {} });
      assert.ok(logger.lines.some((l) => l.level === "debug" && /late response/.test(l.message)));
      link.inject({ jsonrpc: "2.0", id: 777, result: {} });
      assert.ok(
        logger.lines.some((l) => l.level === "warn" && /unknown request id/.test(l.message) && l.fields?.id === 777),
      );
      const quick = connection.request("x", undefined, { timeoutMs: 1000 });
      link.inject({ jsonrpc: "2.0", id: 1, result: 1 });
      assert.equal(await quick, 1);
    },
  );
});
