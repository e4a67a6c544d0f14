import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LINK, type Stream } from "../../jsonrpc/link.js";
import { ResponseLostError, TransportFailedError } from "../../jsonrpc/local-errors.js";
import type { AnyMessage } from "../../jsonrpc/messages.js";
import { createMemoryPair } from "../../transports/memory.js";
import { ClientSideConnection } from "../client-side-connection.js";
import type { Client } from "../../acp/client-handler.js";
import { reconnectingStream, type ReconnectEvent } from "./index.js";

/** A scripted agent on the other end of an in-memory link: records what it gets, answers with `reply`. */
class RawAgent {
  readonly received: AnyMessage[] = [];
  readonly #stream: Stream;
  #waiters: Array<() => void> = [];

  constructor(
    stream: Stream,
    readonly reply: (message: AnyMessage, agent: RawAgent) => void,
  ) {
    this.#stream = stream;
    stream[LINK]!.start({
      message: (value) => {
        this.received.push(value as AnyMessage);
        reply(value as AnyMessage, this);
        for (const wake of this.#waiters.splice(0)) wake();
      },
      problem: () => {},
      closed: () => {},
    });
  }

  send(message: unknown): void {
    this.#stream[LINK]!.send(message as AnyMessage);
  }

  /** Drops the link, as a dead server would. */
  drop(): void {
    void this.#stream[LINK]!.close();
  }

  methods(): string[] {
    return this.received.flatMap((m) => ("method" in m ? [m.method] : []));
  }

  until(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => (test() ? resolve() : this.#waiters.push(check));
      this.#waiters.push(check);
    });
  }
}

/**
 * Answers like a minimal agent: initialize (with `capabilities`), new/load/resume, prompts that never end unless
 * "quick".
 */
function agentReplies(capabilities: Record<string, unknown>) {
  return (message: AnyMessage, agent: RawAgent) => {
    if (!("method" in message) || !("id" in message)) return;
    const params = (message.params ?? {}) as Record<string, unknown>;
    const answer = (result: unknown) => agent.send({ jsonrpc: "2.0", id: message.id, result });
    switch (message.method) {
      case "initialize":
        return answer({ protocolVersion: 1, agentCapabilities: capabilities });
      case "session/new":
        return answer({ sessionId: "s1" });
      case "session/load":
        agent.send({
          jsonrpc: "2.0",
          method: "session/update",
          params: {
            sessionId: params.sessionId,
            update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "old" } },
          },
        });
        agent.send({
          jsonrpc: "2.0",
          method: "session/update",
          params: {
            sessionId: params.sessionId,
            update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "old answer" } },
          },
        });
        return answer({});
      case "session/resume":
        return answer({});
      case "session/prompt": {
        const prompt = params.prompt as Array<{ text?: string }>;
        if (prompt[0]?.text === "quick") return answer({ stopReason: "end_turn" });
        return; // never answers: the turn is in flight when the link drops
      }
    }
  };
}

function harness(
  capabilities: Record<string, unknown>,
  options: { failOpens?: number; maxAttempts?: number; holdFirstPermission?: Promise<void> } = {},
) {
  const agents: RawAgent[] = [];
  const events: ReconnectEvent[] = [];
  const updates: unknown[] = [];
  const asked: unknown[] = [];
  let opens = 0;
  const open = () => {
    opens++;
    if (opens > 1 && opens <= 1 + (options.failOpens ?? 0)) throw new Error(`refused (open ${opens})`);
    const [clientSide, agentSide] = createMemoryPair();
    agents.push(new RawAgent(agentSide, agentReplies(capabilities)));
    return clientSide;
  };
  const stream = reconnectingStream(open, {
    initialDelayMs: 1,
    maxDelayMs: 5,
    maxAttempts: options.maxAttempts ?? 3,
    onEvent: (event) => events.push(event),
  });
  const client: Client = {
    sessionUpdate: async (update) => void updates.push(update),
    requestPermission: async (request) => {
      asked.push(request);
      const held = options.holdFirstPermission;
      options.holdFirstPermission = undefined;
      if (held) await held;
      return { outcome: { outcome: "selected", optionId: "allow" } };
    },
  };
  const connection = new ClientSideConnection(() => client, stream);
  const waitFor = (type: ReconnectEvent["type"]) => until(() => events.some((e) => e.type === type));
  return { agents, events, updates, asked, connection, stream, waitFor, opens: () => opens };
}

/** Resolves once `test()` holds (checked on every macrotask turn). */
function until(test: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (test() ? resolve() : setImmediate(check));
    check();
  });
}

const INIT = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true } },
  clientInfo: { name: "t", version: "1" },
};

describe("ReconnectingLink", () => {
  it(
    "a drop mid-turn: the turn fails with ResponseLostError, the link comes back, initialize is resent, the " +
      "session is loaded again",
    async () => {
      const h = harness({ loadSession: true });
      await h.connection.initialize(INIT);
      await h.connection.newSession({ cwd: "/work", mcpServers: [{ name: "m", command: "x", args: [], env: [] }] });
      const turn = h.connection.prompt({ sessionId: "s1", prompt: [{ type: "text", text: "slow" }] });
      await h.agents[0]!.until(() => h.agents[0]!.methods().includes("session/prompt"));
      h.agents[0]!.drop();
      await assert.rejects(
        turn,
        (error: Error) => error instanceof ResponseLostError && /session\/prompt/.test(error.message),
      );
      await h.waitFor("reattached");
      const second = h.agents[1]!;
      assert.deepEqual(second.methods(), ["initialize", "session/load"]);
      assert.deepEqual(
        (second.received[0] as { params: unknown }).params,
        INIT,
        "the application's own initialize, again",
      );
      assert.deepEqual((second.received[1] as { params: unknown }).params, {
        sessionId: "s1",
        cwd: "/work",
        mcpServers: [{ name: "m", command: "x", args: [], env: [] }],
      });
      assert.deepEqual(
        h.events.map((e) => e.type),
        ["disconnected", "reconnecting", "reconnected", "reattached"],
      );
      assert.deepEqual(h.events.at(-1), {
        type: "reattached",
        sessionId: "s1",
        method: "session/load",
        heldBackUpdates: 2,
      });
      assert.deepEqual(h.updates, [], "the replayed history was held back");
      assert.deepEqual(await h.connection.prompt({ sessionId: "s1", prompt: [{ type: "text", text: "quick" }] }), {
        stopReason: "end_turn",
      });
      h.connection.close();
    },
  );

  it("prefers session/resume when the agent advertises it", async () => {
    const h = harness({ loadSession: true, sessionCapabilities: { resume: {} } });
    await h.connection.initialize(INIT);
    await h.connection.newSession({ cwd: "/w", mcpServers: [] });
    h.agents[0]!.drop();
    await h.waitFor("reattached");
    assert.deepEqual(h.agents[1]!.methods(), ["initialize", "session/resume"]);
    h.connection.close();
  });

  it("messages sent while reconnecting wait, then go out in order once the sessions are back", async () => {
    const h = harness({ loadSession: true }, { failOpens: 1 });
    await h.connection.initialize(INIT);
    await h.connection.newSession({ cwd: "/w", mcpServers: [] });
    h.agents[0]!.drop();
    await h.waitFor("disconnected");
    const queued = h.connection.prompt({ sessionId: "s1", prompt: [{ type: "text", text: "quick" }] });
    await h.connection.cancel({ sessionId: "s1" });
    assert.deepEqual(await queued, { stopReason: "end_turn" });
    assert.deepEqual(h.agents[1]!.methods(), ["initialize", "session/load", "session/prompt", "session/cancel"]);
    assert.ok(h.events.some((e) => e.type === "attempt_failed" && /refused \(open 2\)/.test(String(e.error))));
    h.connection.close();
  });

  it("agent request ids of the new link never collide with the old link's unanswered ones", async () => {
    let release!: () => void;
    const h = harness({ loadSession: true }, { holdFirstPermission: new Promise((resolve) => (release = resolve)) });
    await h.connection.initialize(INIT);
    await h.connection.newSession({ cwd: "/w", mcpServers: [] });
    const ask = (agent: RawAgent) =>
      agent.send({
        jsonrpc: "2.0",
        id: 0,
        method: "session/request_permission",
        params: {
          sessionId: "s1",
          toolCall: { toolCallId: "t" },
          options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
        },
      });
    ask(h.agents[0]!); // held by the application while the link drops
    await until(() => h.asked.length === 1);
    h.agents[0]!.drop();
    await h.waitFor("reattached");
    ask(h.agents[1]!);
    await h.agents[1]!.until(() => h.agents[1]!.received.some((m) => !("method" in m)));
    release(); // the old link's answer goes nowhere
    await new Promise((resolve) => setImmediate(resolve));
    const answers = h.agents[1]!.received.filter((m) => !("method" in m));
    assert.deepEqual(answers, [
      { jsonrpc: "2.0", id: 0, result: { outcome: { outcome: "selected", optionId: "allow" } } },
    ]);
    h.connection.close();
  });

  it("gives up after maxAttempts: the connection closes with a TransportFailedError that says why", async () => {
    const h = harness({ loadSession: true }, { failOpens: 10, maxAttempts: 2 });
    await h.connection.initialize(INIT);
    h.agents[0]!.drop();
    await h.connection.closed;
    await assert.rejects(h.connection.newSession({ cwd: "/", mcpServers: [] }), (error: Error) => {
      const cause = (error as { cause?: unknown }).cause;
      assert.ok(cause instanceof TransportFailedError);
      assert.match(
        cause.message,
        /Gave up reconnecting to the agent after 2 attempts; the last one failed: refused \(open 3\)/,
      );
      return true;
    });
    assert.deepEqual(
      h.events.map((e) => e.type),
      ["disconnected", "reconnecting", "attempt_failed", "reconnecting", "attempt_failed", "gave_up"],
    );
  });

  it("a session the agent cannot reattach is reported and forgotten; the link still comes back", async () => {
    const h = harness({});
    await h.connection.initialize(INIT);
    await h.connection.newSession({ cwd: "/w", mcpServers: [] });
    h.agents[0]!.drop();
    await h.waitFor("reattach_failed");
    assert.equal(h.stream.reconnecting.state, "up");
    assert.deepEqual(h.stream.reconnecting.sessions, []);
    h.connection.close();
  });

  it("the first link is not retried: if it cannot be opened, the connection closes with that error", async () => {
    const stream = reconnectingStream(() => Promise.reject(new Error("no route to host")), { initialDelayMs: 1 });
    const connection = new ClientSideConnection(
      () => ({ sessionUpdate: async () => {}, requestPermission: async () => ({ outcome: { outcome: "cancelled" } }) }),
      stream,
    );
    await assert.rejects(connection.initialize(INIT), /no route to host/);
  });
  it("pauseInput/resumeInput reach the live link, and a link opened while paused starts paused", async () => {
    const agents: RawAgent[] = [];
    const calls: string[] = [];
    const events: ReconnectEvent[] = [];
    const open = () => {
      const [clientSide, agentSide] = createMemoryPair();
      agents.push(new RawAgent(agentSide, agentReplies({ loadSession: true })));
      // The memory link's flow control is not what is tested: a link that records the calls, delegating the rest.
      const inner = clientSide[LINK]!;
      const n = agents.length;
      const link = {
        start: (receiver: Parameters<typeof inner.start>[0]) => inner.start(receiver),
        send: (message: AnyMessage) => inner.send(message),
        drain: () => inner.drain(),
        close: () => inner.close(),
        pendingOutput: 0,
        pauseInput: () => void calls.push(`pause ${n}`),
        resumeInput: () => void calls.push(`resume ${n}`),
      };
      return { [LINK]: link } as unknown as Stream;
    };
    const stream = reconnectingStream(open, {
      initialDelayMs: 1,
      maxDelayMs: 5,
      onEvent: (event) => events.push(event),
    });
    const connection = new ClientSideConnection(
      () => ({ sessionUpdate: async () => {}, requestPermission: async () => ({ outcome: { outcome: "cancelled" } }) }),
      stream,
    );
    await connection.initialize(INIT);
    await connection.newSession({ cwd: "/work", mcpServers: [] });
    const link = stream.reconnecting;
    link.pauseInput();
    link.resumeInput();
    link.pauseInput();
    agents[0]!.drop();
    await until(() => agents.length === 2);
    link.resumeInput();
    await until(() => events.some((e) => e.type === "reattached"));
    assert.deepEqual(calls, ["pause 1", "resume 1", "pause 1", "pause 2", "resume 2"]);
    assert.equal(typeof link.pendingOutput, "number");
    connection.close();
  });
});
