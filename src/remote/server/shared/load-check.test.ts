import assert from "node:assert/strict";
import { test } from "node:test";
import { ClusterLoadCheck, refuseLiveSession } from "./load-check.js";

/** A connection's two ends, recording what reaches its client and its agent. */
function ends() {
  const toClient: any[] = [];
  const toAgent: Record<string, unknown>[] = [];
  return {
    toClient,
    toAgent,
    id: "conn-1",
    transport: "http" as const,
    clientInfo: undefined,
    sharingAware: false,
    shareGrant: undefined,
    clientGone: false,
    deliverToClient: (text: string) => (toClient.push(JSON.parse(text)), true),
    deliverToAgent: (message: Record<string, unknown>) => void toAgent.push(message),
    endAgent: () => {},
  };
}

const load = (id: number, sessionId: string) => ({
  jsonrpc: "2.0",
  id,
  method: "session/load",
  params: { sessionId, cwd: "/", mcpServers: [] },
});
const call = (id: number, method: string) => ({ jsonrpc: "2.0", id, method, params: { sessionId: "s2" } });

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

test("refused here or on another node: -32013, how to join it, and where", () => {
  const conn = ends();
  refuseLiveSession(conn, load(1, "s1"));
  refuseLiveSession(conn, load(2, "s1"), "node-b");
  refuseLiveSession(conn, { jsonrpc: "2.0", method: "session/load", params: { sessionId: "s1" } });
  assert.equal(conn.toClient.length, 2, "a notification gets no answer");
  assert.equal(conn.toClient[0].error.code, -32013);
  assert.match(conn.toClient[0].error.message, /^Session s1 is live on this server .*join it with session\/attach/);
  assert.deepEqual(conn.toClient[0].error.data, { sessionId: "s1" });
  assert.match(conn.toClient[1].error.message, /^Session s1 is live on node node-b of this cluster/);
  assert.deepEqual(conn.toClient[1].error.data, { sessionId: "s1", node: "node-b" });
});

test("while the cluster answers, the connection's later calls wait; then all go on in order", async () => {
  const conn = ends();
  const answers = [deferred<string | undefined>(), deferred<string | undefined>()];
  const asked: string[] = [];
  const opened: string[] = [];
  let next = 0;
  const check: ClusterLoadCheck = new ClusterLoadCheck(
    (sessionId) => (asked.push(sessionId), answers[next++]!.promise),
    // The hub's own handling: a load starts another check; anything else goes to the agent.
    (connection, message) =>
      message.method === "session/load" &&
      check.check(connection, (message.params as any).sessionId, message, 1, () => opened.push("s3")),
  );
  check.check(conn, "s1", load(1, "s1"), 1, () => opened.push("s1"));
  assert.equal(check.holds(conn, call(2, "session/prompt"), 1), true);
  assert.equal(check.holds(conn, load(3, "s3"), 1), true);
  assert.equal(check.holds(conn, call(4, "session/set_mode"), 1), true);
  assert.equal(check.holds(ends(), call(9, "session/prompt"), 1), false, "another connection does not wait");
  assert.equal(conn.toAgent.length, 0);

  answers[0]!.resolve("node-b");
  await answers[0]!.promise;
  await Promise.resolve();
  // The load was refused, the prompt went on, the second load waits for its own answer and holds the rest.
  assert.equal(conn.toClient[0].error.code, -32013);
  assert.deepEqual(
    conn.toAgent.map((message) => message.id),
    [2],
  );
  assert.deepEqual(asked, ["s1", "s3"]);
  answers[1]!.resolve(undefined);
  await answers[1]!.promise;
  await Promise.resolve();
  assert.deepEqual(opened, ["s3"], "only the load live nowhere opens its session here");
  assert.deepEqual(
    conn.toAgent.map((message) => message.id),
    [2, 3, 4],
  );
  assert.equal(check.holds(conn, call(5, "session/prompt"), 1), false, "nothing waits any more");
});

test("when the cluster cannot be read, the load fails saying so and nothing stays held", async () => {
  const conn = ends();
  const answer = deferred<string | undefined>();
  const check = new ClusterLoadCheck(
    () => answer.promise,
    () => false,
  );
  check.check(conn, "s1", load(1, "s1"), 1, () => assert.fail("not opened"));
  check.holds(conn, call(2, "session/prompt"), 1);
  answer.reject(new Error("connection terminated"));
  await answer.promise.catch(() => {});
  await Promise.resolve();
  assert.equal(conn.toClient[0].error.code, -32603);
  assert.match(conn.toClient[0].error.message, /could not be read .*connection terminated.*retry shortly/);
  assert.deepEqual(
    conn.toAgent.map((message) => message.id),
    [2],
  );
});
