/**
 * Observers and permission requests, through a `SessionHub` with in-process connection ends: an observer sees each
 * waiting request read-only (`_acpkit/session/permission_pending`, live and on attach with `full` or
 * `pending_only`), then its `permission_resolved` with the same `permissionId`; an observer's answer (to the
 * `permissionId` or to a controller's copy) is refused and never reaches the agent; a controller's copy still wins.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { silentLogger } from "../../../jsonrpc/logger.js";
import type { ConnectionEnds } from "./session-hub.js";
import { SessionHub } from "./session-hub.js";

interface TestEnd extends ConnectionEnds {
  /** Messages delivered to this end's client, parsed. */
  readonly received: Record<string, any>[];
  /** Messages handed to this end's agent. */
  readonly toAgent: Record<string, any>[];
}

function end(id: string): TestEnd {
  const received: Record<string, any>[] = [];
  const toAgent: Record<string, any>[] = [];
  return {
    id,
    transport: "http",
    clientInfo: { name: id, version: "1" },
    sharingAware: true,
    shareGrant: undefined,
    clientGone: false,
    received,
    toAgent,
    deliverToClient(text) {
      received.push(JSON.parse(text) as Record<string, any>);
      return true;
    },
    deliverToAgent(message) {
      toAgent.push(message);
    },
    endAgent() {},
  };
}

const SESSION = "s1";
const PERMISSION = {
  sessionId: SESSION,
  toolCall: { toolCallId: "call-1", title: "Edit a file", kind: "edit", status: "pending" },
  options: [
    { optionId: "allow", name: "Allow", kind: "allow_once" },
    { optionId: "reject", name: "Reject", kind: "reject_once" },
  ],
};

/** A hub with session `s1` opened by `host`'s client. */
function hubWithSession(): { hub: SessionHub; host: TestEnd } {
  const hub = new SessionHub({}, silentLogger);
  const host = end("host");
  hub.agentAnswered(host, "session/new", undefined, { jsonrpc: "2.0", id: 1, result: { sessionId: SESSION } });
  assert.ok(hub.has(SESSION));
  return { hub, host };
}

function attach(hub: SessionHub, client: TestEnd, params: Record<string, unknown>): Record<string, any> {
  assert.equal(hub.fromClient(client, { jsonrpc: "2.0", id: 9, method: "session/attach", params }, 100), true);
  const answer = client.received.find((message) => message.id === 9);
  assert.ok(answer?.result, `attach answered: ${JSON.stringify(answer)}`);
  return answer.result as Record<string, any>;
}

function askPermission(hub: SessionHub, host: TestEnd, agentId: number): void {
  const message = { jsonrpc: "2.0", id: agentId, method: "session/request_permission", params: PERMISSION };
  assert.equal(hub.fromAgent(host, message, JSON.stringify(message)), true);
}

const notices = (client: TestEnd) =>
  client.received.filter((message) => message.method === "_acpkit/session/permission_pending");
const refusals = (client: TestEnd) => client.received.filter((message) => message.method === "_acpkit/session/refused");
const requests = (client: TestEnd) =>
  client.received.filter((message) => message.method === "session/request_permission");
const resolutions = (client: TestEnd) =>
  client.received.filter(
    (message) => message.method === "session/update" && message.params.update.sessionUpdate === "permission_resolved",
  );

describe("observers and permission requests", () => {
  it("an observer sees a request read-only, then who resolved it and how", () => {
    const { hub, host } = hubWithSession();
    const observer = end("observer");
    attach(hub, observer, { sessionId: SESSION, role: "observer", historyPolicy: "none" });
    askPermission(hub, host, 41);

    assert.equal(requests(observer).length, 0, "an observer is sent no request to answer");
    const [notice] = notices(observer);
    assert.ok(notice);
    assert.equal(notice.id, undefined, "a notification, nothing to answer");
    assert.equal(notice.params.sessionId, SESSION);
    assert.deepEqual(notice.params.toolCall, PERMISSION.toolCall);
    assert.deepEqual(notice.params.options, PERMISSION.options);
    assert.match(notice.params.permissionId, /^acpkit-mux-/);
    assert.ok(!Number.isNaN(Date.parse(notice.params.askedAt)));
    assert.equal(notices(host).length, 0, "the controller is asked instead");

    const [copy] = requests(host);
    assert.ok(copy);
    assert.notEqual(copy.id, notice.params.permissionId);
    hub.responseFromClient(host, {
      jsonrpc: "2.0",
      id: copy.id,
      result: { outcome: { outcome: "selected", optionId: "reject" } },
    });
    assert.deepEqual(host.toAgent.at(-1), {
      jsonrpc: "2.0",
      id: 41,
      result: { outcome: { outcome: "selected", optionId: "reject" } },
    });
    const [resolved] = resolutions(observer);
    assert.ok(resolved);
    const update = resolved.params.update;
    assert.equal(update.toolCallId, "call-1");
    assert.equal(update.chosenOptionId, "reject");
    assert.equal(update.resolvedBy.name, "host");
    assert.equal(update._meta.acpkit.permissionId, notice.params.permissionId);
    assert.ok(!Number.isNaN(Date.parse(update._meta.acpkit.resolvedAt)));
    assert.equal(hub.list()[0]!.pendingPermissions, 0);
  });

  it("an observer's answer is refused with a clear error and never reaches the agent", () => {
    const { hub, host } = hubWithSession();
    const observer = end("observer");
    attach(hub, observer, { sessionId: SESSION, role: "observer", historyPolicy: "none" });
    askPermission(hub, host, 42);
    const permissionId = notices(observer)[0]!.params.permissionId as string;
    const copyId = requests(host)[0]!.id as string;
    const allow = { outcome: { outcome: "selected", optionId: "allow" } };

    // To the permissionId it was shown, and to the controller's copy (an id it was never sent).
    assert.equal(hub.responseFromClient(observer, { jsonrpc: "2.0", id: permissionId, result: allow }), true);
    assert.equal(hub.responseFromClient(observer, { jsonrpc: "2.0", id: copyId, result: allow }), true);
    assert.equal(host.toAgent.length, 0, "nothing was counted as an answer");
    assert.equal(resolutions(observer).length, 0);
    const refused = refusals(observer);
    assert.equal(refused.length, 2);
    assert.deepEqual(
      refused.map((message) => message.params.requestId),
      [permissionId, copyId],
    );
    for (const message of refused) {
      assert.equal(message.params.sessionId, SESSION);
      assert.equal(message.params.method, "session/request_permission");
      assert.equal(message.params.error.code, -32011);
      assert.match(message.params.error.message, /observes session s1 \(read-only\).*not counted.*controllers/);
    }
    assert.equal(hub.list()[0]!.pendingPermissions, 1, "still waiting for a controller");

    // The controller's answer still wins.
    hub.responseFromClient(host, { jsonrpc: "2.0", id: copyId, result: allow });
    assert.deepEqual(host.toAgent, [{ jsonrpc: "2.0", id: 42, result: allow }]);
    assert.equal(resolutions(observer)[0]!.params.update.chosenOptionId, "allow");
  });

  it("a controller answering the permissionId (not its copy) is refused and told its copy's id", () => {
    const { hub, host } = hubWithSession();
    const observer = end("observer");
    attach(hub, observer, { sessionId: SESSION, role: "observer", historyPolicy: "none" });
    askPermission(hub, host, 43);
    const permissionId = notices(observer)[0]!.params.permissionId as string;
    const copyId = requests(host)[0]!.id as string;
    hub.responseFromClient(host, { jsonrpc: "2.0", id: permissionId, result: { outcome: { outcome: "cancelled" } } });
    assert.equal(host.toAgent.length, 0);
    const [refused] = refusals(host);
    assert.ok(refused);
    assert.match(
      refused.params.error.message,
      new RegExp(`answer the session/request_permission it was sent \\(id ${copyId}\\)`),
    );
  });

  for (const historyPolicy of ["full", "pending_only"] as const)
    it(`a late observer (${historyPolicy}) sees the request still waiting, in the answer and as a notification`, () => {
      const { hub, host } = hubWithSession();
      askPermission(hub, host, 44);
      const late = end("late");
      const result = attach(hub, late, { sessionId: SESSION, role: "observer", historyPolicy });
      const listed = result._meta.acpkit.pendingPermissions as Record<string, any>[];
      assert.equal(listed.length, 1);
      assert.deepEqual(listed[0]!.toolCall, PERMISSION.toolCall);
      const [notice] = notices(late);
      assert.ok(notice);
      assert.deepEqual(notice.params, listed[0]);
      const answerAt = late.received.findIndex((message) => message.id === 9);
      assert.ok(late.received.indexOf(notice) > answerAt, "the notification follows the attach answer");
      assert.equal(requests(late).length, 0);
    });

  it("a late observer with historyPolicy none is not shown it; a late controller is asked instead", () => {
    const { hub, host } = hubWithSession();
    askPermission(hub, host, 45);
    const quiet = end("quiet");
    const result = attach(hub, quiet, { sessionId: SESSION, role: "observer", historyPolicy: "none" });
    assert.equal(result._meta.acpkit.pendingPermissions, undefined);
    assert.equal(notices(quiet).length, 0);
    const controller = end("controller");
    const answer = attach(hub, controller, { sessionId: SESSION, historyPolicy: "pending_only" });
    assert.equal(answer._meta.acpkit.pendingPermissions, undefined);
    assert.equal(notices(controller).length, 0);
    assert.equal(requests(controller).length, 1);
  });

  it("a request the agent withdraws is resolved for observers too (resolvedBy agent)", () => {
    const { hub, host } = hubWithSession();
    const observer = end("observer");
    attach(hub, observer, { sessionId: SESSION, role: "observer", historyPolicy: "none" });
    askPermission(hub, host, 46);
    const permissionId = notices(observer)[0]!.params.permissionId as string;
    const cancel = { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 46 } };
    assert.equal(hub.fromAgent(host, cancel, JSON.stringify(cancel)), true);
    const update = resolutions(observer)[0]!.params.update;
    assert.deepEqual(update.resolvedBy, { clientId: "agent" });
    assert.deepEqual(update.outcome, { outcome: "cancelled" });
    assert.equal(update._meta.acpkit.permissionId, permissionId);
    // The permissionId is released with the request: a late answer to it is not the session's any more.
    hub.responseFromClient(observer, { jsonrpc: "2.0", id: permissionId, result: {} });
    assert.equal(refusals(observer).length, 0);
    assert.equal(host.toAgent.filter((message) => message.id === 46).length, 1);
  });
});
