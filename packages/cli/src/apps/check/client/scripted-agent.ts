/**
 * The scripted agent of `acp check client`: plays the agent's side over a `ScriptPeer`, answering the session setup
 * by itself (initialize, optionally slowly; session/new, optionally after sending updates for the new session
 * first) and handing each prompt to the scenario, which then does what it wants on the wire.
 */
import type { ScriptPeer, WireEvent } from "@acpkit/sdk/wire";
import { WaitTimeoutError } from "@acpkit/sdk/wire";
import { CheckFailed } from "../results.js";

export interface ScriptedAgentOptions {
  /** Answer initialize this late. */
  initializeDelayMs?: number;
  /** Sent in the initialize answer. Default: no optional capabilities. */
  agentCapabilities?: Record<string, unknown>;
  /** Called after session/new arrived, before it is answered (e.g. to send updates for the session first). */
  beforeSessionAnswer?: (sessionId: string, peer: ScriptPeer) => void;
  /** Called after initialize arrived, before it is answered. */
  beforeInitializeAnswer?: (peer: ScriptPeer) => void;
}

/** A prompt the scenario now owns. */
export interface PromptTurn {
  event: WireEvent;
  sessionId: string;
  /** The session's cwd, as the client gave it. */
  cwd: string;
  answered: boolean;
}

export class ScriptedAgent {
  /** The client's initialize params. */
  initialize: Record<string, unknown> | undefined;
  readonly sessions = new Map<string, string>();
  readonly cancels: WireEvent[] = [];
  private readonly prompts: PromptTurn[] = [];
  private promptWaiters: Array<(turn: PromptTurn) => void> = [];
  private sessionCount = 0;

  constructor(
    readonly peer: ScriptPeer,
    private readonly options: ScriptedAgentOptions = {},
  ) {
    peer.onRequest((event) => this.handle(event));
    peer.onNotification((event) => {
      if (event.method === "session/cancel") this.cancels.push(event);
    });
  }

  /** `clientCapabilities` from initialize. */
  get clientCapabilities(): Record<string, unknown> {
    return (this.initialize?.clientCapabilities ?? {}) as Record<string, unknown>;
  }

  /** The next prompt (already received or coming). */
  nextPrompt(timeoutMs: number): Promise<PromptTurn> {
    const waiting = this.prompts.find((p) => !p.answered && !this.taken.has(p));
    if (waiting) {
      this.taken.add(waiting);
      return Promise.resolve(waiting);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.promptWaiters = this.promptWaiters.filter((w) => w !== take);
        reject(
          new CheckFailed(
            `the client did not send session/prompt within ${Math.round(timeoutMs / 1000)} s of starting the ` +
              `agent; ${this.progress()}`,
          ),
        );
      }, timeoutMs);
      const take = (turn: PromptTurn) => {
        clearTimeout(timer);
        this.taken.add(turn);
        resolve(turn);
      };
      this.promptWaiters.push(take);
      this.peer.whenClosed().then(() => {
        clearTimeout(timer);
        reject(
          new CheckFailed(`the client closed the agent's stdin before sending session/prompt; ${this.progress()}`),
        );
      });
    });
  }
  private readonly taken = new Set<PromptTurn>();

  /** Prompts not answered yet. */
  pending(): PromptTurn[] {
    return this.prompts.filter((p) => !p.answered);
  }

  /** Sends a session/update. */
  update(sessionId: string, update: Record<string, unknown>): WireEvent {
    return this.peer.notify("session/update", { sessionId, update });
  }

  /** Sends an agent_message_chunk. */
  say(sessionId: string, text: string): WireEvent {
    return this.update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  }

  /** Answers a prompt. */
  end(turn: PromptTurn, stopReason = "end_turn"): void {
    if (turn.answered) return;
    turn.answered = true;
    this.peer.respond(turn.event, { stopReason });
  }

  /** Sends a request to the client and waits for the answer; a missing answer fails the scenario. */
  async ask(method: string, params: unknown, timeoutMs: number): Promise<WireEvent> {
    const { response } = this.peer.request(method, params, { timeoutMs });
    try {
      return await response;
    } catch (error) {
      if (error instanceof WaitTimeoutError)
        throw new CheckFailed(
          `the client did not answer ${method} within ${Math.round(timeoutMs / 1000)} s. The client MUST ` +
            `answer every request of the agent.`,
        );
      throw new CheckFailed(`the client closed the connection while ${method} was pending`);
    }
  }

  /** Where the conversation got to, for messages. */
  progress(): string {
    const sent = this.peer.events
      .filter((e) => e.from === "client" && (e.type === "request" || e.type === "notification"))
      .map((e) => e.method);
    return sent.length === 0 ? "it sent nothing" : `it sent ${sent.join(", ")}`;
  }

  private handle(event: WireEvent): void {
    const params = (event.params ?? {}) as Record<string, unknown>;
    switch (event.method) {
      case "initialize": {
        this.initialize = params;
        this.options.beforeInitializeAnswer?.(this.peer);
        const answer = () =>
          this.peer.respond(event, {
            protocolVersion: 1,
            agentCapabilities: this.options.agentCapabilities ?? {},
            authMethods: [],
            agentInfo: { name: "acp-check-scripted-agent", title: "acp check scripted agent", version: "1.0.0" },
          });
        if (this.options.initializeDelayMs) setTimeout(answer, this.options.initializeDelayMs);
        else answer();
        return;
      }
      case "authenticate":
        this.peer.respond(event, {});
        return;
      case "session/new": {
        const sessionId = `acp-check-session-${++this.sessionCount}`;
        this.sessions.set(sessionId, typeof params.cwd === "string" ? params.cwd : "");
        this.options.beforeSessionAnswer?.(sessionId, this.peer);
        this.peer.respond(event, { sessionId });
        return;
      }
      case "session/prompt": {
        const sessionId = String(params.sessionId);
        const turn: PromptTurn = { event, sessionId, cwd: this.sessions.get(sessionId) ?? "", answered: false };
        this.prompts.push(turn);
        const waiter = this.promptWaiters.shift();
        if (waiter) waiter(turn);
        return;
      }
      default:
        this.peer.respondError(event, -32601, `"Method not found": ${event.method}`, { method: event.method });
    }
  }
}
