/**
 * The conversation of one lane as a client shows it, folded from the wire: a `Transcript` (the library's session
 * model) per session, fed by `session/update`, bracketed by `session/prompt` and its answer; the sessions' setup
 * from `session/new`, `load`, `resume` and `fork`; the agent's requests to the client (permissions, forms) while
 * they wait for an answer; terminals by id. The same fold serves every lane: the page's own client, an editor
 * seen through the tap, a recorded cassette, an observed session.
 */
import { Transcript } from "@acpkit/sdk/client-toolkit";
import type { WireEvent } from "@acpkit/sdk/wire";

/**
 * The `session/update` kinds a shared session's server adds (acpkit's `acp serve`, after the multi-client attach
 * proposal, ACP RFD #533): not in ACP v1's schema; sent only to clients that attached or said they know them.
 */
export const SHARED_UPDATE_KINDS: ReadonlySet<unknown> = new Set([
  "prompt_received",
  "turn_complete",
  "permission_resolved",
  "client_disconnected",
]);

/** A model the agent offers (unstable `models`). */
export interface ModelInfo {
  readonly modelId: string;
  readonly name: string;
  readonly description?: string | null;
}

export interface SessionView {
  readonly sessionId: string;
  readonly transcript: Transcript;
  /** How the session came to be: new, load, resume, fork, or first seen in an update. */
  readonly origin: "new" | "load" | "resume" | "fork" | "seen";
  models: { available: readonly ModelInfo[]; current: string | undefined } | undefined;
}

/** A request of the agent to the client, while it waits (and after: with its answer). */
export interface AgentRequest {
  readonly index: number;
  readonly method: string;
  readonly id: string;
  readonly params: any;
  readonly sessionId: string | undefined;
  answered: boolean;
  answer?: unknown;
  /**
   * Seen by an observer of a shared session: the agent put it to the session's controllers and the observer was told
   * (`_acpkit/session/permission_pending`, keyed by its `permissionId`); `permission_resolved` settles it.
   */
  readonly observed?: boolean;
}

export interface TerminalView {
  readonly terminalId: string;
  readonly sessionId: string | undefined;
  readonly command: string;
  output: string;
  exitStatus: unknown;
}

/** What is in flight from the client, by id: to match the answers. */
interface Asked {
  readonly method: string;
  readonly params: any;
}

export class ConversationFold {
  readonly sessions = new Map<string, SessionView>();
  /** Session ids in the order they appeared. */
  readonly order: string[] = [];
  readonly requests = new Map<string, AgentRequest>();
  readonly terminals = new Map<string, TerminalView>();
  /** Agent info and capabilities from `initialize`. */
  initialize: { request?: any; result?: any } = {};
  /** The last `session/list` answer. */
  listed: any[] | undefined;
  version = 0;
  readonly #asked = new Map<string, Asked>();
  readonly #terminalCommands = new Map<string, string>();
  /** Output of a terminal pushed before the wire showed its creation. */
  readonly #early = new Map<string, { output: string; exitStatus: unknown }>();

  /** Folds one classified frame. */
  apply(event: WireEvent): void {
    const key = event.id === undefined ? undefined : `${event.from}:${JSON.stringify(event.id)}`;
    if (event.type === "request" && event.method !== undefined) {
      if (event.from === "client") this.#clientRequest(event, key!);
      else this.#agentRequest(event);
    } else if (event.type === "notification") {
      this.#notification(event);
    } else if (event.type === "response") {
      const asker = event.from === "agent" ? "client" : "agent";
      const askedKey = `${asker}:${JSON.stringify(event.id)}`;
      if (asker === "client") {
        const asked = this.#asked.get(askedKey);
        this.#asked.delete(askedKey);
        if (asked) this.#clientAnswered(asked, event);
      } else {
        const request = this.requests.get(askedKey);
        if (request) {
          request.answered = true;
          request.answer = event.result ?? event.error;
          this.#agentAnswered(request, event);
        }
      }
    }
    this.version++;
  }

  session(sessionId: string, origin: SessionView["origin"] = "seen"): SessionView {
    let view = this.sessions.get(sessionId);
    if (!view) {
      view = { sessionId, transcript: new Transcript({ sessionId }), origin, models: undefined };
      this.sessions.set(sessionId, view);
      this.order.push(sessionId);
    }
    return view;
  }

  #clientRequest(event: WireEvent, key: string): void {
    const params = (event.params ?? {}) as any;
    this.#asked.set(key, { method: event.method!, params });
    if (event.method === "initialize") this.initialize = { request: params };
    if (event.method === "session/load" && typeof params.sessionId === "string") this.session(params.sessionId, "load");
    if (event.method === "session/prompt" && typeof params.sessionId === "string") {
      const { transcript } = this.session(params.sessionId);
      if (transcript.currentTurn) transcript.failTurn(new Error("a new prompt began before this turn's answer"));
      transcript.beginTurn(Array.isArray(params.prompt) ? params.prompt : []);
    }
  }

  #clientAnswered(asked: Asked, event: WireEvent): void {
    const result = (event.result ?? {}) as any;
    const failed = event.error !== undefined;
    switch (asked.method) {
      case "initialize":
        this.initialize = { ...this.initialize, result: failed ? undefined : result };
        return;
      case "session/new":
      case "session/load":
      case "session/resume":
      case "session/fork": {
        if (failed) return;
        const origin = asked.method.slice("session/".length) as SessionView["origin"];
        const sessionId =
          typeof result.sessionId === "string" ? result.sessionId : (asked.params.sessionId as string | undefined);
        if (typeof sessionId !== "string") return;
        const view = this.session(sessionId, origin);
        view.transcript.setup(result);
        if (result.models?.availableModels)
          view.models = { available: result.models.availableModels, current: result.models.currentModelId };
        return;
      }
      case "session/prompt": {
        const view = this.sessions.get(asked.params.sessionId);
        if (!view) return;
        if (failed) view.transcript.failTurn(event.error);
        else view.transcript.endTurn(result.stopReason);
        return;
      }
      case "session/set_config_option":
        if (!failed && Array.isArray(result.configOptions))
          this.sessions.get(asked.params.sessionId)?.transcript.apply({
            sessionUpdate: "config_option_update",
            configOptions: result.configOptions,
          });
        return;
      case "session/set_mode":
        if (!failed)
          this.sessions.get(asked.params.sessionId)?.transcript.apply({
            sessionUpdate: "current_mode_update",
            currentModeId: asked.params.modeId,
          });
        return;
      case "session/set_model": {
        const view = this.sessions.get(asked.params.sessionId);
        if (!failed && view?.models) view.models = { ...view.models, current: asked.params.modelId };
        return;
      }
      case "session/list":
        if (!failed && Array.isArray(result.sessions)) this.listed = result.sessions;
        return;
    }
  }

  #agentRequest(event: WireEvent): void {
    const params = (event.params ?? {}) as any;
    const request: AgentRequest = {
      index: event.index,
      method: event.method!,
      id: JSON.stringify(event.id),
      params,
      sessionId: typeof params.sessionId === "string" ? params.sessionId : undefined,
      answered: false,
    };
    this.requests.set(`agent:${request.id}`, request);
    if (event.method === "terminal/create")
      this.#terminalCommands.set(request.id, [params.command, ...(params.args ?? [])].join(" "));
  }

  #agentAnswered(request: AgentRequest, event: WireEvent): void {
    const result = event.result as any;
    if (request.method === "terminal/create" && typeof result?.terminalId === "string") {
      this.terminals.set(result.terminalId, {
        terminalId: result.terminalId,
        sessionId: request.sessionId,
        command: this.#terminalCommands.get(request.id) ?? "",
        output: this.#early.get(result.terminalId)?.output ?? "",
        exitStatus: this.#early.get(result.terminalId)?.exitStatus,
      });
      this.#early.delete(result.terminalId);
    }
    // An editor's terminal seen through the tap: its output as the agent reads it.
    if (request.method === "terminal/output" && typeof result?.output === "string") {
      const terminal = this.terminals.get(request.params.terminalId);
      if (terminal) {
        terminal.output = result.output;
        if (result.exitStatus) terminal.exitStatus = result.exitStatus;
      }
    }
    if (request.method === "terminal/wait_for_exit" && result) {
      const terminal = this.terminals.get(request.params.terminalId);
      if (terminal) terminal.exitStatus = result;
    }
  }

  #notification(event: WireEvent): void {
    const params = (event.params ?? {}) as any;
    if (event.method === "_acpkit/session/permission_pending" && typeof params.permissionId === "string") {
      const { sessionId, permissionId, toolCall, options } = params;
      // Told again after the attach answer listed it: kept once.
      if (this.requests.has(`observed:${permissionId}`)) return;
      this.requests.set(`observed:${permissionId}`, {
        index: event.index,
        method: "session/request_permission",
        id: permissionId,
        params: { sessionId, toolCall, options },
        sessionId: typeof sessionId === "string" ? sessionId : undefined,
        answered: false,
        observed: true,
      });
      return;
    }
    if (event.method === "session/update" && typeof params.sessionId === "string" && params.update) {
      if (SHARED_UPDATE_KINDS.has(params.update.sessionUpdate)) this.#sharedUpdate(params.sessionId, params.update);
      else this.session(params.sessionId).transcript.apply(params.update);
    } else if (event.method === "session/cancel" && typeof params.sessionId === "string") {
      this.sessions.get(params.sessionId)?.transcript.requestCancel();
    }
  }

  /**
   * A shared session's own updates (what `acp serve` tells attached clients): another client's prompt begins a turn
   * (with who sent it), `turn_complete` ends it; a turn this lane's client prompted itself is bracketed by its own
   * request and answer instead. Who answered a permission, who left: in the wire, not the conversation.
   */
  #sharedUpdate(sessionId: string, update: any): void {
    const permissionId = update._meta?.acpkit?.permissionId;
    if (update.sessionUpdate === "permission_resolved" && typeof permissionId === "string") {
      const observed = this.requests.get(`observed:${permissionId}`);
      if (observed) {
        observed.answered = true;
        observed.answer = { outcome: update.outcome, chosenOptionId: update.chosenOptionId, by: update.resolvedBy };
      }
    }
    const { transcript } = this.session(sessionId);
    const ownPrompt = [...this.#asked.values()].some(
      (asked) => asked.method === "session/prompt" && asked.params.sessionId === sessionId,
    );
    if (ownPrompt) return;
    if (update.sessionUpdate === "prompt_received") {
      if (transcript.currentTurn) transcript.endTurn("end_turn");
      const who = typeof update.sentBy?.name === "string" ? update.sentBy.name : update.sentBy?.clientId;
      const prompt = Array.isArray(update.prompt) ? update.prompt : [];
      transcript.beginTurn(who === undefined ? prompt : [{ type: "text", text: `(${who}) ` }, ...prompt]);
    } else if (update.sessionUpdate === "turn_complete" && transcript.currentTurn) {
      const error = update._meta?.acpkit?.error;
      if (typeof error === "string") transcript.failTurn(new Error(error));
      else transcript.endTurn(update.stopReason ?? "end_turn");
    }
  }

  /** Live output of a terminal the page's host runs (pushed by the server). */
  terminalOutput(terminalId: string, text: string): void {
    const terminal = this.terminals.get(terminalId) ?? this.#earlyOf(terminalId);
    terminal.output += text;
    this.version++;
  }

  terminalExit(terminalId: string, exitStatus: unknown): void {
    const terminal = this.terminals.get(terminalId) ?? this.#earlyOf(terminalId);
    terminal.exitStatus = exitStatus;
    this.version++;
  }

  #earlyOf(terminalId: string): { output: string; exitStatus: unknown } {
    let early = this.#early.get(terminalId);
    if (!early) this.#early.set(terminalId, (early = { output: "", exitStatus: undefined }));
    return early;
  }
}
