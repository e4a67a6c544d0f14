import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestError } from "../../jsonrpc/index.js";
import { InitializationState } from "./initialization.js";

type Request = { protocolVersion: number; info: { name: string } };
type Response = { protocolVersion: number; info: { name: string } };

const request = (name: string): Request => ({ protocolVersion: 2, info: { name } });
const response = (name: string): Response => ({ protocolVersion: 2, info: { name } });
const isInvalidRequest = (pattern: RegExp) => (error: unknown) =>
  error instanceof RequestError && error.code === -32600 && pattern.test(error.message);

/** Settles `promise` into a value to compare, after everything already queued ran. */
async function outcome(promise: Promise<unknown>): Promise<unknown> {
  let state: unknown = "pending";
  promise.then(
    (value) => (state = { resolved: value }),
    (error: unknown) => (state = { rejected: error instanceof Error ? error.message : error }),
  );
  await new Promise((resolve) => setTimeout(resolve, 0));
  return state;
}

test("uninitialized -> initializing -> initialized: begin, complete, and the snapshot", async () => {
  const state = new InitializationState<Request, Response>();
  assert.equal(state.phase, "uninitialized");
  assert.equal(state.hasInitialized, false);
  assert.equal(state.beginError(), undefined);
  const pending = state.initialized;
  const sent = request("first");
  state.begin(sent);
  sent.info.name = "mutated after begin";
  assert.equal(state.phase, "initializing");
  assert.equal(state.hasInitialized, false);
  assert.ok(isInvalidRequest(/already in progress/)(state.beginError()));
  assert.throws(() => state.begin(request("second")), isInvalidRequest(/already in progress/));
  assert.equal(await outcome(pending), "pending");
  const answered = response("agent");
  state.complete(answered);
  answered.info.name = "mutated after complete";
  assert.equal(state.phase, "initialized");
  assert.equal(state.hasInitialized, true);
  const snapshot = await pending;
  assert.deepEqual(snapshot, { request: request("first"), response: response("agent") });
  (snapshot.request as Request).info.name = "mutated copy";
  assert.deepEqual((await state.initialized).request, request("first"), "each read is a fresh copy");
});

test("complete and failAttempt do nothing unless an attempt is in progress", async () => {
  const state = new InitializationState<Request, Response>();
  state.complete(response("stray"));
  state.failAttempt();
  assert.equal(state.phase, "uninitialized");
  state.begin(request("a"));
  state.complete(response("a"));
  state.complete(response("again"));
  state.failAttempt();
  assert.equal(state.phase, "initialized");
  assert.deepEqual((await state.initialized).response, response("a"));
});

test("a first attempt that fails leaves it uninitialized: waiters are refused, begin may start again", async () => {
  const state = new InitializationState<Request, Response>();
  const snapshot = state.initialized;
  state.begin(request("first"));
  const waiting = state.waitUntilInitialized("session/new");
  state.failAttempt();
  assert.equal(state.phase, "uninitialized");
  await assert.rejects(waiting, isInvalidRequest(/initialized before 'session\/new'/));
  assert.equal(await outcome(snapshot), "pending", "initialized waits for a later success");
  assert.equal(state.beginError(), undefined);
  state.begin(request("second"));
  state.complete(response("second"));
  assert.deepEqual((await snapshot).request, request("second"));
});

test(
  "waitUntilInitialized: at once when initialized, after the attempt in progress, refused when nothing was " +
    "attempted",
  async () => {
    const state = new InitializationState<Request, Response>();
    await assert.rejects(
      state.waitUntilInitialized("auth/login"),
      isInvalidRequest(/initialized before 'auth\/login'/),
    );
    state.begin(request("a"));
    const waiting = state.waitUntilInitialized("session/new");
    assert.equal(await outcome(waiting), "pending");
    state.complete(response("a"));
    assert.deepEqual(await outcome(waiting), { resolved: undefined });
    assert.deepEqual(await outcome(state.waitUntilInitialized("x")), { resolved: undefined });
  },
);

test(
  "a repeat: allowed after a completed exchange; while it runs hasInitialized stays true and initialized waits " +
    "for its outcome",
  async () => {
    const state = new InitializationState<Request, Response>();
    state.begin(request("first"));
    state.complete(response("first"));
    assert.equal(state.beginError(), undefined, "a repeat before any other request");
    state.begin(request("second"));
    assert.equal(state.phase, "initializing");
    assert.equal(state.hasInitialized, true, "an exchange completed before");
    const during = state.initialized;
    const waiting = state.waitUntilInitialized("session/new");
    assert.equal(await outcome(during), "pending");
    state.complete(response("second"));
    assert.deepEqual(
      await during,
      { request: request("second"), response: response("second") },
      "the latest is authoritative",
    );
    assert.deepEqual(await outcome(waiting), { resolved: undefined });
  },
);

test(
  "a repeat that fails (an error answer, or the connection " + "closing) keeps the previous exchange in effect",
  async () => {
    for (const failure of ["failAttempt", "fail"] as const) {
      const state = new InitializationState<Request, Response>();
      state.begin(request("first"));
      state.complete(response("first"));
      state.begin(request("second"));
      const during = state.initialized;
      const waiting = state.waitUntilInitialized("session/new");
      if (failure === "fail") state.fail(new Error("closed"));
      else state.failAttempt();
      assert.equal(state.phase, "initialized", failure);
      assert.equal(state.hasInitialized, true);
      assert.deepEqual(await during, { request: request("first"), response: response("first") });
      assert.deepEqual(await outcome(waiting), { resolved: undefined });
      assert.equal(state.beginError(), undefined, "a repeat may be tried again");
    }
  },
);

test("noteRequest: after one, initialize may not be repeated; before any exchange it changes nothing", () => {
  const state = new InitializationState<Request, Response>();
  state.noteRequest();
  assert.equal(state.beginError(), undefined, "a request refused before initialize does not count");
  state.begin(request("a"));
  state.noteRequest();
  assert.ok(isInvalidRequest(/already in progress/)(state.beginError()));
  state.complete(response("a"));
  assert.ok(isInvalidRequest(/must not be repeated after other requests/)(state.beginError()));
  assert.throws(() => state.begin(request("b")), isInvalidRequest(/must not be repeated/));
  assert.equal(state.phase, "initialized");

  const other = new InitializationState<Request, Response>();
  other.begin(request("a"));
  other.complete(response("a"));
  other.noteRequest();
  assert.throws(() => other.begin(request("b")), isInvalidRequest(/must not be repeated/));
});

test("closing before initialization fails for good, with the close reason (or a -32600 without one)", async () => {
  for (const during of [false, true]) {
    const state = new InitializationState<Request, Response>();
    const snapshot = state.initialized;
    if (during) state.begin(request("a"));
    const waiting = during ? state.waitUntilInitialized("session/new") : undefined;
    const reason = new Error("connection closed");
    state.fail(reason);
    assert.equal(state.phase, "failed");
    assert.equal(state.hasInitialized, false);
    await assert.rejects(snapshot, (error) => error === reason);
    if (waiting) await assert.rejects(waiting, (error) => error === reason);
    await assert.rejects(state.waitUntilInitialized("x"), (error) => error === reason);
    assert.ok(isInvalidRequest(/initialization failed/)(state.beginError()));
    assert.throws(() => state.begin(request("late")), isInvalidRequest(/initialization failed/));
    state.complete(response("late"));
    state.fail(new Error("again"));
    assert.equal(state.phase, "failed");
    await assert.rejects(state.initialized, (error) => error === reason, "the first failure stays");
  }
  const plain = new InitializationState<Request, Response>();
  plain.fail(undefined);
  await assert.rejects(plain.initialized, isInvalidRequest(/initialization failed/));
});

test("a failure after initialization changes nothing", async () => {
  const state = new InitializationState<Request, Response>();
  state.begin(request("a"));
  state.complete(response("a"));
  state.fail(new Error("closed later"));
  assert.equal(state.phase, "initialized");
  assert.deepEqual((await state.initialized).response, response("a"));
});

test("followClose: a signal already aborted fails it at once; one aborted later fails it with its reason", async () => {
  const aborted = new InitializationState<Request, Response>();
  aborted.followClose(AbortSignal.abort(new Error("gone")));
  assert.equal(aborted.phase, "failed");
  await assert.rejects(aborted.initialized, /gone/);

  const controller = new AbortController();
  const state = new InitializationState<Request, Response>();
  state.followClose(controller.signal);
  state.begin(request("a"));
  controller.abort(new Error("peer left"));
  assert.equal(state.phase, "failed");
  await assert.rejects(state.initialized, /peer left/);

  const initialized = new InitializationState<Request, Response>();
  const later = new AbortController();
  initialized.followClose(later.signal);
  initialized.begin(request("a"));
  initialized.complete(response("a"));
  later.abort(new Error("closed after"));
  assert.equal(initialized.phase, "initialized");
});

test(
  "whenAttemptEnds: at once without an attempt; otherwise synchronously when it ends, in order, after the phase " +
    "changed",
  () => {
    const state = new InitializationState<Request, Response>();
    const log: string[] = [];
    state.whenAttemptEnds(() => log.push(`now ${state.phase}`));
    assert.deepEqual(log, ["now uninitialized"]);
    for (const [end, phase] of [
      [() => state.failAttempt(), "uninitialized"],
      [() => state.complete(response("a")), "initialized"],
    ] as const) {
      log.length = 0;
      state.begin(request("a"));
      state.whenAttemptEnds(() => log.push(`first ${state.phase}`));
      state.whenAttemptEnds(() => log.push(`second ${state.phase}`));
      assert.deepEqual(log, []);
      end();
      assert.deepEqual(log, [`first ${phase}`, `second ${phase}`], "before end() returned");
    }
    const closing = new InitializationState<Request, Response>();
    closing.begin(request("a"));
    closing.whenAttemptEnds(() => log.push(`closed ${closing.phase}`));
    closing.fail(new Error("gone"));
    assert.equal(log.at(-1), "closed failed");
  },
);

test(
  "whenInitialized: sends at once when initialized, at the " + "attempt's end in call order, refuses otherwise",
  async () => {
    const state = new InitializationState<Request, Response>();
    await assert.rejects(
      state.whenInitialized("session/new", () => "sent"),
      isInvalidRequest(/initialized before 'session\/new'/),
    );
    const log: string[] = [];
    state.begin(request("a"));
    const first = state.whenInitialized("a", () => log.push("first"));
    const second = state.whenInitialized("b", () => log.push("second"));
    state.complete(response("a"));
    assert.deepEqual(log, ["first", "second"], "synchronously, before complete() returned");
    assert.deepEqual([await first, await second], [1, 2]);
    assert.equal(await state.whenInitialized("c", () => Promise.resolve("async result")), "async result");
    await assert.rejects(
      state.whenInitialized("d", () => {
        throw new Error("send failed");
      }),
      /send failed/,
    );

    const failing = new InitializationState<Request, Response>();
    failing.begin(request("a"));
    const refused = failing.whenInitialized("session/new", () => "never");
    failing.failAttempt();
    await assert.rejects(refused, isInvalidRequest(/'session\/new'/));
    failing.begin(request("b"));
    const closed = failing.whenInitialized("x", () => "never");
    failing.fail(new Error("connection closed"));
    await assert.rejects(closed, /connection closed/);
    await assert.rejects(
      failing.whenInitialized("y", () => "never"),
      /connection closed/,
    );
  },
);
