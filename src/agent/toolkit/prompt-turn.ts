/**
 * Prompt turns: one at a time per session, each with an `AbortSignal` that `session/cancel` aborts.
 * The spec's contracts, kept here: the agent SHOULD stop work and abort its requests to the client as soon as a
 * turn is cancelled (each request a turn makes is sent with the turn's signal, so the engine sends
 * `$/cancel_request` for it and stops waiting); it MUST then answer the prompt with `stopReason: "cancelled"`, not
 * an error, so abort errors become that stop reason; nothing is sent for a turn after its response (late updates
 * are dropped with a logger warning).
 * @see https://agentclientprotocol.com/protocol/prompt-turn#cancellation
 */
import { RequestError, type SendRequestOptions } from "../../jsonrpc/index.js";
import type {
  ContentBlock,
  PermissionOption,
  PromptRequest,
  PromptResponse,
  SessionUpdate,
  StopReason,
  ToolCallUpdate,
} from "../../protocol/index.js";
import { isAbortError, TurnCancelledError } from "./cancelled.js";
import {
  createTerminal,
  readFile,
  runCommand,
  writeFile,
  type ClientTerminal,
  type RunCommandOptions,
  type RunCommandResult,
  type TerminalOptions,
} from "./client-access.js";
import { elicit, type ElicitRequest, type ElicitResult } from "./elicitation.js";
import { askPermission, type PermissionDecision } from "./permissions.js";
import { PlanTracker } from "./plan.js";
import { refuseUnreplayablePrompt } from "./replay-limit.js";
import type { ToolkitSession } from "./session.js";
import { ToolCallTracker, type ToolCallHandle, type ToolCallInit } from "./tool-calls.js";
import { usageUpdate, type UsageReport } from "./usage.js";

/** What a prompt handler may return: a stop reason, a full response, or nothing (`end_turn`). */
export type TurnResult = StopReason | PromptResponse | void;

/**
 * The agent author's turn logic (an async function: TypeScript infers literal stop reasons only for a pure
 * `Promise` return type). Throwing an abort error (or anything after a cancel) answers `cancelled`.
 */
export type PromptHandler<S = unknown> = (turn: PromptTurn<S>) => Promise<TurnResult>;

/** What to do with a prompt that arrives while a turn runs: refuse it (-32600, the default) or queue it. */
export type TurnPolicy = "reject" | "queue";

/** The prompt turns of one session: the running one and those queued behind it. */
export class TurnSlot {
  current: PromptTurn<never> | undefined;
  readonly #live = new Set<PromptTurn<never>>();
  #tail: Promise<void> = Promise.resolve();

  /** Whether a turn runs or waits. */
  get busy(): boolean {
    return this.#live.size > 0;
  }

  /** Cancels the running turn and every queued one. */
  cancelAll(reason?: unknown): void {
    for (const turn of this.#live) turn.cancel(reason);
  }

  /** Resolves once every turn started so far has been answered. */
  idle(): Promise<void> {
    return this.#tail;
  }

  /** @internal Queues `turn`; resolves when it may run, with the function that ends it. */
  async enter(turn: PromptTurn<never>): Promise<() => void> {
    this.#live.add(turn);
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.current = turn;
    return () => {
      if (this.current === turn) this.current = undefined;
      this.#live.delete(turn);
      release();
    };
  }
}

/** One prompt turn, as the handler sees it. */
export class PromptTurn<S = unknown> {
  readonly session: ToolkitSession<S>;
  readonly params: PromptRequest;
  /** The turn's tool calls. */
  readonly toolCalls: ToolCallTracker;
  readonly #controller = new AbortController();
  #closed = false;
  #plan: PlanTracker | undefined;

  constructor(session: ToolkitSession<S>, params: PromptRequest) {
    this.session = session;
    this.params = params;
    this.toolCalls = new ToolCallTracker((update) => this.send(update), session.logger);
  }

  get sessionId(): string {
    return this.session.sessionId;
  }

  /** The user's message. */
  get prompt(): ContentBlock[] {
    return this.params.prompt;
  }

  /** The text blocks of the prompt, joined with newlines. */
  get text(): string {
    return this.params.prompt.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  }

  /**
   * Aborted when the turn is cancelled (`session/cancel`, `session/close`, a cancelled permission, connection loss).
   */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get permissions() {
    return this.session.permissions;
  }

  /** True once the response was decided: sends are dropped from then on. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The turn's plan; every change sends the whole plan. */
  get plan(): PlanTracker {
    return (this.#plan ??= new PlanTracker((update) => this.send(update)));
  }

  /** Cancels the turn: aborts `signal` (and with it every outstanding request of the turn). */
  cancel(reason: unknown = new TurnCancelledError()): void {
    this.#controller.abort(reason);
  }

  /** Throws `TurnCancelledError` if the turn was cancelled. */
  throwIfCancelled(): void {
    if (this.signal.aborted) throw new TurnCancelledError();
  }

  /** Sends (and records) a `session/update` for this turn; dropped with a warning once the turn was answered. */
  send(update: SessionUpdate): Promise<void> {
    if (this.#closed) {
      this.session.logger.warn("dropped a session/update sent after its prompt turn was answered", {
        sessionId: this.sessionId,
        sessionUpdate: update.sessionUpdate,
      });
      return Promise.resolve();
    }
    return this.session.send(update);
  }

  /** Streams agent message text. */
  say(text: string): Promise<void> {
    return this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  }

  /** Streams agent thought text. */
  think(text: string): Promise<void> {
    return this.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text } });
  }

  /** Starts a tool call (sends `tool_call`). */
  toolCall(init: ToolCallInit): ToolCallHandle {
    return this.toolCalls.create(init);
  }

  /** Asks permission for a tool call; see `askPermission`. A `cancelled` outcome ends the turn. */
  requestPermission(
    toolCall: ToolCallHandle | ToolCallUpdate,
    options?: readonly PermissionOption[],
  ): Promise<PermissionDecision> {
    const update = "snapshot" in toolCall ? toolCall.snapshot() : toolCall;
    return askPermission(this, update, options);
  }

  /**
   * Sends a request to the client on behalf of this turn. It carries the turn's signal: cancelling the turn sends
   * `$/cancel_request` for it and rejects it at once with -32800. Refused once the turn is cancelled or answered.
   */
  request<R = unknown>(method: string, params?: unknown, options: SendRequestOptions = {}): Promise<R> {
    if (this.#closed) return Promise.reject(new Error(`the prompt turn was already answered; not sending ${method}`));
    if (this.signal.aborted) return Promise.reject(new TurnCancelledError());
    return this.session.client.request<R>(method, params, {
      ...options,
      cancellationSignal: this.signal,
      stopWaitingOnCancel: true,
    });
  }

  /** Reads a text file through the client; `CapabilityMissingError` unless it advertised `fs.readTextFile`. */
  readFile(path: string, range?: { line?: number; limit?: number }): Promise<string> {
    return readFile(this, path, range);
  }

  /** Writes a text file through the client; `CapabilityMissingError` unless it advertised `fs.writeTextFile`. */
  writeFile(path: string, content: string): Promise<void> {
    return writeFile(this, path, content);
  }

  /** Starts a command in a client terminal (release it!); `CapabilityMissingError` unless it advertised `terminal`. */
  createTerminal(options: TerminalOptions): Promise<ClientTerminal> {
    return createTerminal(this, options);
  }

  /**
   * Runs a command in a client terminal with an optional timeout; the terminal is always released. See `runCommand`.
   */
  runCommand(options: RunCommandOptions): Promise<RunCommandResult> {
    return runCommand(this, options);
  }

  /** Asks the user through a form or a URL; `CapabilityMissingError` unless the client advertised that mode. */
  elicit(request: ElicitRequest): Promise<ElicitResult> {
    return elicit(this, request);
  }

  /** Sends (and records) a `usage_update`: tokens in context, window size, cumulative cost. */
  reportUsage(report: UsageReport): Promise<void> {
    return this.send(usageUpdate(report));
  }

  /** @internal Marks the turn answered. */
  close(): void {
    this.#closed = true;
  }
}

/** Options of `runPromptTurn`. */
export interface RunTurnOptions {
  policy?: TurnPolicy;
  /** After a cancel, how long to wait for the handler to finish before answering `cancelled` anyway. Default 50 ms. */
  cancelGraceMs?: number;
  /** Called once the turn may run, before the handler (e.g. to set a title). */
  beforeHandler?: (turn: PromptTurn<never>) => Promise<void> | void;
  /**
   * The `session/prompt` request's own signal: a `$/cancel_request` for the prompt (or the connection closing) cancels
   * this turn (and only this one, even while it waits behind another), like `session/cancel` does.
   */
  requestSignal?: AbortSignal;
}

function normalize(result: TurnResult): PromptResponse {
  if (result === undefined) return { stopReason: "end_turn" };
  return typeof result === "string" ? { stopReason: result } : result;
}

/**
 * Runs one `session/prompt`: refuses a prompt whose blocks could not be replayed within the connection's message
 * limit (-32602, see `refuseUnreplayablePrompt`), waits its turn (or is refused), records the user's message for
 * replay, runs the handler, maps cancellation to `stopReason: "cancelled"`, closes the turn, then waits until its
 * history is durable.
 */
export async function runPromptTurn<S>(
  session: ToolkitSession<S>,
  params: PromptRequest,
  handler: PromptHandler<S>,
  options: RunTurnOptions = {},
): Promise<PromptResponse> {
  // Refused before anything is stored: a block the session could not replay would make it unloadable.
  refuseUnreplayablePrompt(session.sessionId, params.prompt, session.maxMessageBytes);
  if (session.turns.busy && (options.policy ?? "reject") === "reject") {
    throw RequestError.invalidRequest(
      { sessionId: session.sessionId },
      "a prompt turn is already running in this session: wait for its response, or send session/cancel first",
    );
  }
  const turn = new PromptTurn<S>(session, params);
  const requestSignal = options.requestSignal;
  const onRequestAbort = () => turn.cancel();
  if (requestSignal?.aborted) turn.cancel();
  else requestSignal?.addEventListener("abort", onRequestAbort, { once: true });
  const leave = await session.turns.enter(turn as PromptTurn<never>);
  try {
    if (turn.signal.aborted) return { stopReason: "cancelled" };
    session.record(
      ...params.prompt.map((content) => ({
        kind: "update" as const,
        update: { sessionUpdate: "user_message_chunk" as const, content },
      })),
    );
    await options.beforeHandler?.(turn as PromptTurn<never>);
    let response: PromptResponse;
    try {
      response = await settle(turn, handler, options.cancelGraceMs ?? 50);
    } finally {
      turn.close();
      await session.flush();
    }
    await session.touch();
    return response;
  } finally {
    requestSignal?.removeEventListener("abort", onRequestAbort);
    turn.close();
    leave();
  }
}

async function settle<S>(turn: PromptTurn<S>, handler: PromptHandler<S>, graceMs: number): Promise<PromptResponse> {
  const running = (async () => handler(turn))();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const grace = new Promise<"timed-out">((resolve) => {
    onAbort = () => (timer = setTimeout(() => resolve("timed-out"), graceMs));
    if (turn.signal.aborted) onAbort();
    else turn.signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const outcome = await Promise.race([
      running.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      grace,
    ]);
    if (outcome === "timed-out") {
      running.catch(() => {});
      turn.session.logger.warn("the prompt handler did not stop within the cancel grace period; answered cancelled", {
        sessionId: turn.sessionId,
        graceMs,
      });
      return { stopReason: "cancelled" };
    }
    if ("error" in outcome) {
      if (turn.signal.aborted || isAbortError(outcome.error)) return { stopReason: "cancelled" };
      throw outcome.error;
    }
    return turn.signal.aborted ? { stopReason: "cancelled" } : normalize(outcome.value);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (onAbort !== undefined) turn.signal.removeEventListener("abort", onAbort);
  }
}
