/**
 * The cluster scenarios, pointed at any set of nodes (base URLs of the ACP endpoint, at least three) that share their
 * connections, hosting the agent of `fixtures/cluster-agent.ts`: the official SDK's HTTP backend conformance
 * scenarios written anew for acpkit's server (every request of one connection on a different node), and a long
 * turn read in pieces with `Last-Event-ID` from node after node. Each throws with what went wrong; the in-memory
 * test runs them against three servers sharing one backend object, and the PostgreSQL one against separate
 * `acp serve --cluster` processes.
 */
import assert from "node:assert/strict";
import { del, EventStream, mustOpen, open, post, type ClusterTarget, type StreamEvent } from "./node-client.js";

export type { ClusterTarget } from "./node-client.js";

const PROTOCOL_VERSION = 1;

/** The official conformance fixtures, as the agent of `cluster-agent.ts` answers them. */
const initializeRequest = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { elicitation: { form: {} } } },
});
const sessionNewRequest = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "session/new",
  params: { cwd: "/tmp", mcpServers: [] },
});
const promptRequest = (id: number, sessionId: string, text: string) => ({
  jsonrpc: "2.0",
  id,
  method: "session/prompt",
  params: { sessionId, prompt: [{ type: "text", text }] },
});

function nodesOf(target: ClusterTarget): [string, string, string] {
  assert.ok(target.nodes.length >= 3, `a cluster scenario needs three nodes, got ${target.nodes.length}`);
  return [target.nodes[0]!, target.nodes[1]!, target.nodes[2]!];
}

/** POSTs initialize to `node`; the connection id. */
export async function initialize(target: ClusterTarget, node: string): Promise<string> {
  const answer = await post(target, node, initializeRequest(1));
  assert.equal(answer.status, 200, `initialize on ${node}: ${answer.status} ${answer.text}`);
  const connectionId = answer.headers.get("acp-connection-id");
  assert.ok(connectionId, "the initialize answer carries Acp-Connection-Id");
  assert.equal(JSON.parse(answer.text).result.protocolVersion, PROTOCOL_VERSION);
  return connectionId;
}

/** POSTs a message that must be accepted (202). */
async function accepted(
  target: ClusterTarget,
  node: string,
  message: unknown,
  routing: { connectionId: string; sessionId?: string },
  what: string,
): Promise<void> {
  const answer = await post(target, node, message, routing);
  assert.equal(answer.status, 202, `${what} on ${node}: ${answer.status} ${answer.text}`);
}

function chunkText(event: StreamEvent): string | undefined {
  const data = event.data;
  return data.method === "session/update" && data.params?.update?.sessionUpdate === "agent_message_chunk"
    ? data.params.update.content.text
    : undefined;
}

/** Every event has an id, no id twice; decimal ids (acpkit's) increase along the stream. */
function checkIds(events: readonly StreamEvent[], what: string): void {
  const ids = events.map((event) => event.id);
  assert.ok(
    ids.every((id) => id !== ""),
    `every event on ${what} has an id: ${JSON.stringify(ids.slice(0, 20))}`,
  );
  assert.equal(new Set(ids).size, ids.length, `no event id twice on ${what}`);
  if (ids.every((id) => /^\d+$/.test(id))) {
    for (let i = 1; i < ids.length; i++)
      assert.ok(Number(ids[i]) > Number(ids[i - 1]), `ids increase on ${what}: ${ids[i - 1]} then ${ids[i]}`);
  }
}

/** What the conformance scenario saw, for the report. */
export interface ConformanceReport {
  readonly connectionId: string;
  readonly sessionId: string;
  readonly serverRequestIds: readonly (string | number)[];
}

/**
 * The official conformance scenarios on three nodes A, B, C: `initialize` on A; `session/new` on B, its answer read
 * on C's connection stream (queued before that stream opened); the prompt on B, the session stream on C (its events
 * queued before it opened); the permission request and the elicitation answered through A; `elicitation/complete`
 * on the connection stream; the DELETE on B; then every node answers 404 for the connection (POST, both GETs,
 * DELETE). `serverRequestId` checks the ids of the agent's requests as the client sees them.
 */
export async function conformanceScenario(
  target: ClusterTarget,
  options: { serverRequestId?: RegExp } = {},
): Promise<ConformanceReport> {
  const [a, b, c] = nodesOf(target);
  const connectionId = await initialize(target, a);
  await accepted(target, b, sessionNewRequest(2), { connectionId }, "session/new");
  const connectionStream = await mustOpen(target, c, { connectionId });
  const connectionEvents: StreamEvent[] = [];
  const created = await connectionStream.expect("the session/new response");
  connectionEvents.push(created);
  assert.equal(created.data.id, 2, `the session/new response first: ${JSON.stringify(created.data)}`);
  const sessionId: string = created.data.result?.sessionId;
  assert.equal(typeof sessionId, "string");

  await accepted(target, b, promptRequest(3, sessionId, "interactive"), { connectionId, sessionId }, "session/prompt");
  const sessionStream = await mustOpen(target, c, { connectionId, sessionId });
  const sessionEvents: StreamEvent[] = [];
  const next = async (describe: string) => {
    const event = await sessionStream.expect(describe);
    sessionEvents.push(event);
    return event;
  };
  assert.equal(chunkText(await next("the first chunk")), "before-permission");
  const permission = (await next("the permission request")).data;
  assert.equal(permission.method, "session/request_permission");
  assert.equal(permission.params.sessionId, sessionId);
  assert.equal(permission.params.toolCall.toolCallId, "permission-tool");
  if (options.serverRequestId) assert.match(String(permission.id), options.serverRequestId);

  await accepted(
    target,
    a,
    { jsonrpc: "2.0", id: permission.id, result: { outcome: { outcome: "selected", optionId: "allow" } } },
    { connectionId, sessionId },
    "the permission answer",
  );
  assert.equal(chunkText(await next("the chunk after the permission")), "permission-selected-allow");
  const elicitation = (await next("the elicitation request")).data;
  assert.equal(elicitation.method, "elicitation/create");
  assert.deepEqual(
    { sessionId: elicitation.params.sessionId, mode: elicitation.params.mode, message: elicitation.params.message },
    { sessionId, mode: "form", message: "Name" },
  );
  assert.notEqual(elicitation.id, permission.id, "each agent request has its own id");
  if (options.serverRequestId) assert.match(String(elicitation.id), options.serverRequestId);

  await accepted(
    target,
    a,
    { jsonrpc: "2.0", id: elicitation.id, result: { action: "accept", content: { name: "Alice" } } },
    { connectionId, sessionId },
    "the elicitation answer",
  );
  const complete = await connectionStream.expect("elicitation/complete");
  connectionEvents.push(complete);
  assert.deepEqual(
    { method: complete.data.method, params: complete.data.params },
    { method: "elicitation/complete", params: { elicitationId: "elicitation-1" } },
  );
  assert.equal(chunkText(await next("the chunk after the elicitation")), "elicitation-accept-Alice");
  const done = (await next("the prompt response")).data;
  assert.deepEqual({ id: done.id, result: done.result }, { id: 3, result: { stopReason: "end_turn" } });
  checkIds(connectionEvents, "the connection stream");
  checkIds(sessionEvents, "the session stream");
  await sessionStream.close();
  await connectionStream.close();

  assert.equal(await del(target, b, connectionId), 202, "DELETE on B");
  for (const node of target.nodes) {
    const posted = await post(target, node, sessionNewRequest(4), { connectionId });
    assert.equal(posted.status, 404, `POST after DELETE on ${node}: ${posted.status} ${posted.text}`);
    for (const routing of [{ connectionId }, { connectionId, sessionId }]) {
      const refused = await open(target, node, routing);
      if (refused instanceof EventStream) {
        await refused.close();
        assert.fail(`GET ${JSON.stringify(routing)} after DELETE on ${node} opened a stream`);
      }
      assert.equal(refused.status, 404, `GET after DELETE on ${node}: ${refused.status} ${refused.text}`);
    }
    assert.equal(await del(target, node, connectionId), 404, `DELETE after DELETE on ${node}`);
  }
  return { connectionId, sessionId, serverRequestIds: [permission.id, elicitation.id] };
}

/**
 * Opens a stream with Last-Event-ID. acpkit's backends let a resuming reader take the stream over; a backend of the
 * official shape refuses it (409) until the server has seen the dropped response go and released its lease, so a
 * 409 is retried for a while.
 */
async function resume(
  target: ClusterTarget,
  node: string,
  routing: { connectionId: string; sessionId: string; lastEventId: string },
): Promise<EventStream> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const opened = await open(target, node, routing);
    if (opened instanceof EventStream) return opened;
    if (opened.status !== 409 || Date.now() > deadline)
      throw new Error(`resuming on ${node} after ${routing.lastEventId}: ${opened.status} ${opened.text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What the resume scenario saw. */
export interface ResumeReport {
  readonly chunks: number;
  /** Streams opened with Last-Event-ID. */
  readonly resumes: number;
  /** Nodes the session stream was read from. */
  readonly nodesRead: number;
  readonly ms: number;
}

/**
 * A turn of `chunks` chunks read in pieces from node after node: the session stream is dropped after each piece
 * (as a broken connection would be) and opened again on the next node with the last event's id as `Last-Event-ID`.
 * What arrives, concatenated, must be exactly the turn: every chunk once, in order. The nodes must keep at least
 * what one piece can leave in flight (the turn is about 170 bytes a chunk).
 */
export async function resumeScenario(
  target: ClusterTarget,
  options: {
    chunks?: number;
    pieces?: readonly number[];
    /** The prompt that makes the agent send `chunks` chunks (default: the cluster agent's `stream N`). */
    prompt?: (chunks: number) => string;
    /** The text of chunk `i` (from 0) (default: the cluster agent's). */
    chunk?: (i: number) => string;
  } = {},
): Promise<ResumeReport> {
  const started = Date.now();
  const chunks = options.chunks ?? 20_000;
  const pieces = options.pieces ?? [1500, 1, 3000, 700, 4200, 2500];
  const nodes = target.nodes;
  const [a, b, c] = nodesOf(target);
  const connectionId = await initialize(target, a);
  const connectionStream = await mustOpen(target, c, { connectionId });
  await accepted(target, b, sessionNewRequest(2), { connectionId }, "session/new");
  const sessionId: string = (await connectionStream.expect("the session/new response")).data.result.sessionId;

  let node = 0;
  let stream = await mustOpen(target, nodes[node]!, { connectionId, sessionId });
  const prompt = options.prompt?.(chunks) ?? `stream ${chunks}`;
  await accepted(target, b, promptRequest(3, sessionId, prompt), { connectionId, sessionId }, "the prompt");
  const received: StreamEvent[] = [];
  const nodesRead = new Set([nodes[node]]);
  let resumes = 0;
  let piece = 0;
  let inPiece = 0;
  for (;;) {
    const event = await stream.expect(`event ${received.length + 1} of the turn`);
    received.push(event);
    if (event.data.id === 3) break;
    if (++inPiece < pieces[piece % pieces.length]!) continue;
    // A break: drop this response and resume on the next node after the last event received.
    inPiece = 0;
    piece++;
    await stream.close();
    node = (node + 1) % nodes.length;
    stream = await resume(target, nodes[node]!, { connectionId, sessionId, lastEventId: event.id });
    nodesRead.add(nodes[node]);
    resumes++;
  }
  await stream.close();
  await connectionStream.close();
  const texts = received.map(chunkText).filter((text) => text !== undefined);
  assert.equal(texts.length, chunks, `every chunk arrived once: ${texts.length} of ${chunks}`);
  const expected = Array.from({ length: chunks }, (_, i) => options.chunk?.(i) ?? `chunk-${i}`.padEnd(40, "."));
  assert.equal(texts.join("|"), expected.join("|"), "the chunks, concatenated, are exactly the turn");
  assert.deepEqual(received.at(-1)!.data.result, { stopReason: "end_turn" });
  checkIds(received, "the session stream");
  assert.equal(await del(target, nodes[resumes % nodes.length]!, connectionId), 202);
  return { chunks, resumes, nodesRead: nodesRead.size, ms: Date.now() - started };
}
