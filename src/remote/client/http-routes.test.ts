import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestError } from "../../jsonrpc/request-error.js";
import { HttpRoutes } from "./http-routes.js";

const request = (id: number | string, method: string, params?: unknown) => ({
  jsonrpc: "2.0" as const,
  id,
  method,
  params,
});
const response = (id: number | string, result: unknown = {}) => ({ jsonrpc: "2.0" as const, id, result });

test("requests and notifications go to the session their params name; others to the connection", () => {
  const routes = new HttpRoutes();
  assert.equal(routes.sessionOf(request(1, "session/prompt", { sessionId: "s1", prompt: [] })), "s1");
  assert.equal(routes.sessionOf({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s2" } }), "s2");
  assert.equal(routes.sessionOf(request(2, "_vendor/thing", { sessionId: "s3" })), "s3", "any method with a sessionId");
  assert.equal(routes.sessionOf(request(3, "session/new", { cwd: "/" })), undefined);
  assert.equal(routes.sessionOf({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 1 } }), undefined);
});

test("an answer to an agent request goes with the session whose stream carried that request, once", () => {
  const routes = new HttpRoutes();
  routes.arrived(request(7, "session/request_permission", { sessionId: "s1" }), "s1");
  routes.arrived(request(8, "_ext/ask", {}), undefined);
  assert.equal(routes.sessionOf(response(7)), "s1");
  assert.equal(routes.sessionOf(response("7")), undefined, '"7" is not 7');
  assert.equal(routes.sessionOf(response(8)), undefined, "came on the connection stream");
  routes.accepted(response(7));
  assert.equal(routes.sessionOf(response(7)), undefined, "forgotten once the answer was accepted");
});

test(
  "a session/new or session/fork result makes its session known; a session/load response waits for input " +
    "already received",
  () => {
    const routes = new HttpRoutes();
    assert.deepEqual(routes.arrived(response(1, { sessionId: "s9" }), undefined), {
      afterPendingInput: false,
      newSession: "s9",
    });
    routes.sending(request(2, "session/load", { sessionId: "s9" }), "s9");
    assert.deepEqual(routes.arrived(response(2, { modes: null }), undefined), {
      afterPendingInput: true,
      newSession: undefined,
    });
    routes.sending(request(3, "session/prompt", { sessionId: "s9" }), "s9");
    assert.deepEqual(routes.arrived(response(3, { stopReason: "end_turn" }), "s9"), {
      afterPendingInput: false,
      newSession: undefined,
    });
  },
);

test("a session stream that ends loses exactly its own waiting requests", () => {
  const routes = new HttpRoutes();
  routes.sending(request(1, "session/prompt", { sessionId: "a" }), "a");
  routes.sending(request(2, "session/prompt", { sessionId: "b" }), "b");
  routes.sending(request(3, "session/set_mode", { sessionId: "a" }), "a");
  routes.arrived(response(3), "a");
  assert.deepEqual(routes.streamEnded("a"), [1]);
  assert.deepEqual(routes.streamEnded("a"), [], "forgotten");
  assert.deepEqual(routes.streamEnded("b"), [2]);
});

test(
  "a refused POST: a session request still waiting is answered once; a connection request always; a late one " + "not",
  () => {
    const routes = new HttpRoutes();
    const prompt = request(1, "session/prompt", { sessionId: "a" });
    routes.sending(prompt, "a");
    assert.equal(routes.refused(prompt), true);
    assert.equal(routes.refused(prompt), false, "already answered");
    const answered = request(2, "session/prompt", { sessionId: "a" });
    routes.sending(answered, "a");
    routes.arrived(response(2), "a");
    assert.equal(routes.refused(answered), false, "its response arrived first");
    assert.equal(routes.refused(request(3, "session/new", {})), true);
    assert.equal(
      routes.refused({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "a" } }),
      false,
      "a notification has no one to tell",
    );
  },
);

test("a session failed with 409 refuses its messages until session/load or session/resume reattaches it", () => {
  const routes = new HttpRoutes();
  routes.sending(request(1, "session/prompt", { sessionId: "a" }), "a");
  const conflict = new RequestError(-32603, "409");
  assert.deepEqual(routes.failSession("a", conflict), [1]);
  assert.equal(routes.failureOf(request(2, "session/prompt", { sessionId: "a" }), "a"), conflict);
  assert.equal(routes.failureOf(request(3, "session/load", { sessionId: "a" }), "a"), undefined);
  assert.equal(
    routes.failureOf(request(4, "session/prompt", { sessionId: "a" }), "a"),
    undefined,
    "cleared by the reattach",
  );
  routes.failSession("b", conflict);
  assert.equal(routes.failureOf(request(5, "session/resume", { sessionId: "b" }), "b"), undefined);
});
