/**
 * One client's transport connection (`Acp-Connection-Id`) and the agent hosted for it: client messages go to the
 * agent, the agent's messages are routed to the client's streams (HTTP) or socket (WebSocket), requests are tracked
 * so their answers find the right stream, and the connection ends (its agent told by the end of its input) when the
 * client deletes it, goes away, breaks a limit, or the agent ends.
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (Connection and Session Model)
 */
import type { AnyMessage } from "../../jsonrpc/messages.js";
import { streamFromLink } from "../../transports/link-streams.js";
import { METHODS } from "../http-protocol.js";
import {
  lifecycleOf,
  REMOTE_AGENT_CONTROL,
  type AgentConnectionLifecycle,
  type RemoteAgentControl,
} from "../../acp/agent-connector.js";
import { AgentLink, type AgentOutput } from "./agent-link.js";
import { errorAnswerText, keyOfId } from "./client-message.js";
import { stdioMcpRefusal } from "./mcp-policy.js";
import { errorText, InitializeFailure } from "./errors.js";
import {
  closeCodeOf,
  type ConnectionEnd,
  type ConnectionTransport,
  type InitializeWaiter,
  type ServerConnectionOptions,
} from "./connection-options.js";
import { ConnectionLimitError, Waiters, type OutputSink } from "./output-sink.js";
import { HeldOutput } from "./held-output.js";
import { IdleTimer } from "./idle-timer.js";
import { RequestRenaming } from "./request-renaming.js";
import { RequestTracking } from "./request-tracking.js";
import { SharedEndpoint } from "./shared/shared-endpoint.js";
import { kindOf, responseStreamOf, sessionIdOfResponse, sessionOfAgentMessage } from "./routing.js";
import type { Refusal } from "./server-context.js";

export type { ConnectionEnd, ConnectionTransport, ServerConnectionOptions } from "./connection-options.js";

export class ServerConnection implements AgentOutput {
  readonly id: string;
  readonly openedAt = Date.now();
  readonly agentLink: AgentLink;
  /** The connection's part in shared sessions (with a hub). */
  readonly shared: SharedEndpoint | undefined;
  #output: OutputSink | undefined;
  #lifecycle: AgentConnectionLifecycle = {};
  readonly #requests: RequestTracking;
  readonly #renaming: RequestRenaming | undefined;
  readonly #promptsSettled = new Waiters();
  #state: "new" | "initializing" | "open" | "ended" = "new";
  #end: ConnectionEnd | undefined;
  #initWaiter: InitializeWaiter | undefined;
  readonly #idle: IdleTimer;
  #inFlight = 0;
  #openStreams = 0;
  #resolveDone!: () => void;
  /** Resolves when the connection has ended and its agent is done (its `closed` settled, when it has one). */
  readonly done = new Promise<void>((resolve) => (this.#resolveDone = resolve));

  constructor(readonly options: ServerConnectionOptions) {
    this.id = options.connectionId ?? globalThis.crypto.randomUUID();
    this.#requests = new RequestTracking(options.limits);
    this.#renaming = options.serverRequestId && new RequestRenaming(options.serverRequestId);
    this.agentLink = new AgentLink(this, options.limits.maxMessageBytes);
    const idleEnd = () => void this.end({ reason: "idle" });
    this.#idle = new IdleTimer(options.limits.idleTimeoutMs, idleEnd, options.logger, this.id);
    this.shared = options.hub && new SharedEndpoint(this, options.hub, options.shareGrant);
  }

  get transport(): ConnectionTransport {
    return this.options.transport;
  }

  get isOpen(): boolean {
    return this.#state === "open";
  }

  get ended(): ConnectionEnd | undefined {
    return this.#end;
  }

  get output(): OutputSink | undefined {
    return this.#output;
  }

  /** Session ids with a `session/prompt` the agent has not answered yet. */
  get runningPrompts(): string[] {
    return this.#requests.runningPrompts();
  }

  /**
   * Connects the agent (on a fresh stream carrying `REMOTE_AGENT_CONTROL`), with its `onConnect` handlers deferred
   * until `initialize` is answered. Throws an `InitializeFailure` (500) when the connector throws.
   */
  start(output: OutputSink): void {
    this.#output = output;
    this.#state = "initializing";
    const link = this.agentLink;
    const control: RemoteAgentControl = {
      connectionId: this.id,
      transport: this.transport,
      outputBacklogged: () => output.backlogged,
      pauseInput: () => link.pauseInput(),
      resumeInput: () => link.resumeInput(),
    };
    const stream = streamFromLink(link);
    Object.defineProperty(stream, REMOTE_AGENT_CONTROL, { value: control });
    try {
      this.#lifecycle = lifecycleOf(this.options.connector.connect(stream, { deferConnectHandlers: true }));
    } catch (error) {
      this.end({ reason: "initialize failed", error });
      throw new InitializeFailure(500, `the agent could not be connected: ${errorText(error)}`, { cause: error });
    }
    // Writes a web-stream agent made before closing may still be queued: let them through first.
    this.#lifecycle.closed?.then(
      () => setTimeout(() => this.end({ reason: "agent ended" }), 0),
      (error: unknown) => setTimeout(() => this.end({ reason: "agent ended", error }), 0),
    );
  }

  /**
   * Delivers `initialize` and waits for the agent's answer, which is returned (and, with `passThrough`, also
   * delivered to the output in its place). Rejects with an `InitializeFailure`: 502 when the agent ends first, 504
   * after `initializeTimeoutMs`, 499 when `signal` aborts. `rawId`: the exact text of an id a JS number cannot hold.
   */
  async initialize(
    message: Record<string, unknown>,
    chars: number,
    options: { signal?: AbortSignal; passThrough?: boolean; rawId?: string } = {},
  ): Promise<{ message: Record<string, unknown>; text: string }> {
    const { signal, rawId } = options;
    const answer = new Promise<{ message: Record<string, unknown>; text: string }>((resolve, reject) => {
      this.#initWaiter = {
        key: keyOfId(message.id, rawId),
        request: message,
        passThrough: options.passThrough ?? false,
        resolve,
        reject,
      };
    });
    const timeoutMs = this.options.limits.initializeTimeoutMs;
    const timer = setTimeout(
      () =>
        this.#initWaiter?.reject(
          new InitializeFailure(504, `the agent did not answer initialize within ${timeoutMs} ms`),
        ),
      timeoutMs,
    );
    const onAbort = () => this.#initWaiter?.reject(new InitializeFailure(499, "the client gave up on initialize"));
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (signal?.aborted) onAbort();
      this.agentLink.deliver(message, chars, rawId);
      const result = await answer;
      this.#state = "open";
      try {
        this.#lifecycle.startConnectHandlers?.();
      } catch (error) {
        this.end({ reason: "agent failed", error });
        throw new InitializeFailure(502, `the agent's onConnect handler failed: ${errorText(error)}`, { cause: error });
      }
      this.#updateIdle();
      return result;
    } catch (error) {
      this.end({ reason: "initialize failed", error });
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      this.#initWaiter = undefined;
    }
  }

  /**
   * Forwards a client request or notification in `sessionId` to the agent. Returns a refusal instead when the
   * request id is too long (400) or too many requests are pending (429). `rawId`: the exact text of an id a JS
   * number cannot hold. With `localError` (or a stdio MCP refusal), the request is tracked but answered here with it,
   * not by the agent or a shared session (the answer travels where the agent's would).
   */
  forwardCall(
    message: Record<string, unknown>,
    chars: number,
    sessionId: string | undefined,
    rawId?: string,
    localError?: { code: number; message: string; data?: unknown },
  ): Refusal | undefined {
    if (this.shared?.clientGone) return { status: 404, message: "Not Found: this connection's client went away" };
    if ("id" in message) localError ??= stdioMcpRefusal(this.options.stdioMcpServers ?? "allow", message);
    if (localError === undefined && this.shared?.clientCall(message, chars, rawId)) return undefined;
    if ("id" in message) {
      const refused = this.#requests.clientRequest(message.id, keyOfId(message.id, rawId), message.method, sessionId);
      if (refused) return refused;
    }
    const answer = localError && ({ jsonrpc: "2.0", id: message.id, error: localError } as AnyMessage);
    if (answer) this.fromAgent(answer, errorAnswerText(message.id, rawId, localError!), rawId);
    else this.agentLink.deliver(message, chars, rawId);
    return undefined;
  }

  /**
   * Forwards a client's response to an agent request. With `headerSessionId` (HTTP; `null` skips the check), a
   * response to a request that came on a session stream must name that session. Returns a refusal or undefined.
   */
  forwardResponse(
    message: Record<string, unknown>,
    chars: number,
    headerSessionId: string | undefined | null,
    rawId?: string,
  ): Refusal | undefined {
    if (this.shared?.clientResponse(message)) return undefined;
    const key = keyOfId(message.id, rawId);
    const refused = this.#requests.clientResponse(key, headerSessionId);
    if (refused) return refused;
    const renamed = this.#renaming?.toAgent(message, key) ?? message;
    // A renamed id is the server's own: an exact id text of the client's no longer applies.
    this.agentLink.deliver(renamed, chars, renamed === message ? rawId : undefined);
    return undefined;
  }

  /** Tells the agent to cancel every running prompt turn (`session/cancel` per session); returns their sessions. */
  cancelPrompts(): string[] {
    const sessions = this.runningPrompts;
    for (const sessionId of sessions) {
      const cancel = { jsonrpc: "2.0", method: METHODS.session_cancel, params: { sessionId } };
      this.agentLink.deliver(cancel, 64 + sessionId.length);
    }
    return sessions;
  }

  /** Resolves once no prompt is running (or the connection ended). */
  async promptsSettled(): Promise<void> {
    while (this.#state !== "ended" && this.runningPrompts.length > 0) await this.#promptsSettled.wait();
  }

  /** A POST began / ended: a connection with requests in flight is not idle. */
  requestStarted(): void {
    this.#inFlight++;
    this.#updateIdle();
  }

  requestEnded(): void {
    this.#inFlight--;
    this.#updateIdle();
  }

  /** The number of open SSE streams changed. */
  openStreamsChanged(count: number): void {
    this.#openStreams = count;
    this.#updateIdle();
  }

  /**
   * Ends the connection once: queued output is delivered to streams still reading when the agent ended, dropped
   * otherwise; the agent's input ends (a stdio agent is then stopped by its connector). Returns `done`.
   */
  end(end: ConnectionEnd, force = false): Promise<void> {
    if (this.#state === "ended") return this.done;
    if (!force && this.shared?.ending(end.reason)) return this.done;
    const wasStarted = this.#state !== "new";
    this.#state = "ended";
    this.#end = end;
    this.#idle.stop();
    const initializing = this.#initWaiter !== undefined;
    this.#initWaiter?.reject(
      new InitializeFailure(
        502,
        `it ended before answering initialize${end.error ? ` (${errorText(end.error)})` : ""}; ` +
          "the server's log has its exit status and last stderr lines",
      ),
    );
    const closeOutput = () => {
      if (end.reason === "agent ended") this.#output?.finish(1000, "the agent ended");
      else if (end.reason === "server closing") this.#output?.finish(1001, "the server is shutting down");
      else this.#output?.abort(closeCodeOf(end), end.error === undefined ? end.reason : errorText(end.error));
    };
    // A failed initialize is answered first (over WebSocket, before the close frame): the client learns why. A zero
    // timer, not setImmediate: the server runs outside Node too.
    if (initializing) setTimeout(closeOutput, 0);
    else closeOutput();
    this.agentLink.endInput();
    this.#requests.clear();
    this.#renaming?.clear();
    this.#promptsSettled.wakeAll();
    this.shared?.ended(end.reason);
    this.options.onEnd(this, end);
    const closed = wasStarted ? this.#lifecycle.closed : undefined;
    if (closed) closed.then(this.#resolveDone, this.#resolveDone);
    else this.#resolveDone();
    return this.done;
  }

  // AgentOutput: what the agent sends.

  fromAgent(message: AnyMessage, text: string, rawId?: string): void {
    if (this.#state === "ended") return;
    try {
      this.#route(message as unknown as Record<string, unknown>, text, rawId);
    } catch (error) {
      if (!(error instanceof ConnectionLimitError)) throw error;
      this.limitExceeded(error);
    }
  }

  agentOutputClosed(): void {
    queueMicrotask(() => this.end({ reason: "agent ended" }));
  }

  whenRoom(): Promise<void> {
    return this.#output ? this.#output.whenRoom() : Promise.resolve();
  }

  /** Closes the connection for a broken limit (called by the output sinks). */
  readonly limitExceeded = (error: ConnectionLimitError): void => {
    this.options.logger.warn("closing a remote connection: a limit was exceeded", {
      connectionId: this.id,
      reason: error.message,
    });
    void this.end({ reason: "limit", error });
  };

  #route(message: Record<string, unknown>, text: string, rawId: string | undefined): void {
    const maxIdLength = this.options.limits.maxIdLength;
    if (kindOf(message) === "response") {
      const key = keyOfId(message.id, rawId);
      const waiter = this.#initWaiter;
      if (waiter !== undefined && key === waiter.key) {
        const answer = this.shared
          ? this.shared.initialized(waiter.request, { message, text }, rawId)
          : { message, text };
        waiter.resolve(answer);
        if (waiter.passThrough) this.#output!.deliver(answer.text, undefined);
        return;
      }
      const pending = this.#requests.answered(key);
      if (this.shared?.agentResponse(message, pending)) {
        if (pending?.method === METHODS.session_prompt) this.#promptsSettled.wakeAll();
        return;
      }
      const issued = sessionIdOfResponse(message);
      if (issued !== undefined && issued.length > maxIdLength)
        throw new ConnectionLimitError(`the agent issued a session id longer than maxIdLength (${maxIdLength})`);
      this.#output!.deliver(text, pending ? responseStreamOf(pending.method, pending.sessionId) : undefined);
      if (pending?.method === METHODS.session_prompt) this.#promptsSettled.wakeAll();
      return;
    }
    const sessionId = sessionOfAgentMessage(message);
    if (sessionId !== undefined && sessionId.length > maxIdLength)
      throw new ConnectionLimitError(`the agent used a session id longer than maxIdLength (${maxIdLength})`);
    if (this.shared?.agentMessage(message, text)) return;
    if (this.#renaming) [message, text] = this.#renaming.toClient(message, text);
    if ("id" in message) {
      const key = keyOfId(message.id, rawId);
      if (key !== undefined) this.#requests.agentRequest(key, sessionId);
    }
    this.#output!.deliver(text, sessionId);
  }

  /** Tracks a request handed to the agent by a shared session (stats, graceful close, routing its answer). */
  trackRequest(key: string, method: string, sessionId: string | undefined): void {
    this.#requests.track(key, method, sessionId);
  }

  /** Holds the output to the client (in order) until `until` settles: see `HeldOutput`. */
  holdOutput(until: Promise<unknown>): void {
    const output = this.#output;
    if (output === undefined) return;
    const held = output instanceof HeldOutput ? output : new HeldOutput(output, this.limitExceeded);
    this.#output = held;
    held.hold(until);
  }

  /** Shared sessions keep the agent; its client is gone: nothing more is written to it, nothing idles out. */
  dropClient(): void {
    this.#idle.stop();
    this.#output?.abort(1000, "the client went away");
  }

  #updateIdle(): void {
    const busy = this.#inFlight > 0 || this.#openStreams > 0;
    this.#idle.update(!this.shared?.clientGone && this.#state === "open" && this.transport === "http" && !busy);
  }
}
