/**
 * The protocol v2 session helpers: `SessionBuilder` (from `ctx.buildSession(cwd)`) starts a session, `ActiveSession`
 * submits prompts and reads the session's updates in order.
 *
 * In v2 the `session/prompt` response only acknowledges the prompt; foreground progress and its end arrive as
 * `state_update`s, so `prompt()` and the update stream are independent: an idle `state_update` is read as a `stop`
 * message, a snapshot of idle work that says nothing about which prompt was processed.
 *
 * Spec: https://agentclientprotocol.com/protocol/v2/prompt-lifecycle
 */
import type { MaybePromise, SendRequestOptions } from "../../jsonrpc/index.js";
import {
  BackgroundWork,
  ContentBlock as ContentBlockGuards,
  RequestPermissionSubject,
  SessionUpdate,
  StateUpdate,
  type CancelTerminalResponse,
  type CancelToolCallResponse,
  type ContentBlock,
  type McpServer,
  type NewSessionRequest,
  type NewSessionResponse,
  type PromptResponse,
  type RequestPermissionRequest,
  type SessionConfigOption,
  type SetSessionConfigOptionRequest,
  type SetSessionConfigOptionResponse,
} from "../../protocol/v2.js";
import { AsyncQueue } from "../async-queue.js";
import type { ActiveSessionMessage, SessionListener, V2ActiveSessionFeed } from "./active-session-feed.js";

export type { ActiveSessionMessage } from "./active-session-feed.js";

/** `session/set_config_option` params without the session id, which the session fills in. */
export type ActiveSessionSetConfigOptionRequest = SetSessionConfigOptionRequest extends infer R
  ? R extends unknown
    ? { [K in keyof R as K extends "sessionId" ? never : K]: R[K] }
    : never
  : never;

/** How a session sends its requests: through the client context (which waits for initialization). */
export interface SessionRequester {
  readonly feed: V2ActiveSessionFeed;
  request(method: string, params: unknown, options?: SendRequestOptions): Promise<unknown>;
}

/**
 * Builds the `session/new` request of a v2 session, then starts it. Paths in ACP payloads must be absolute.
 */
export class SessionBuilder {
  private request: NewSessionRequest;

  /** @internal Get one from `ClientContext.buildSession`. */
  constructor(
    private readonly requester: SessionRequester,
    request: NewSessionRequest,
  ) {
    this.request = structuredClone(request);
  }

  /** The `session/new` request that will be sent (a copy). */
  toRequest(): NewSessionRequest {
    return structuredClone(this.request);
  }

  /** Replaces the additional workspace roots (absolute paths) that widen the session's file-system scope. */
  withAdditionalDirectories(additionalDirectories: string[]): this {
    this.request = { ...this.request, additionalDirectories: [...additionalDirectories] };
    return this;
  }

  /** Adds one MCP server to the request. */
  withMcpServer(mcpServer: McpServer): this {
    this.request = { ...this.request, mcpServers: [...(this.request.mcpServers ?? []), structuredClone(mcpServer)] };
    return this;
  }

  /**
   * Sends `session/new` and returns the active session; updates sent for it before the response are its first.
   * `dispose()` it when done, or use `withSession`.
   */
  async start(options?: SendRequestOptions): Promise<ActiveSession> {
    const { feed } = this.requester;
    const ended = feed.beginStart();
    let responsePosition: number | undefined;
    const onResponse = (): void => {
      responsePosition = feed.position;
      options?.onResponse?.();
    };
    try {
      const response = (await this.requester.request("session/new", this.toRequest(), {
        ...options,
        onResponse,
      })) as NewSessionResponse;
      return new ActiveSession(this.requester, response, responsePosition);
    } finally {
      ended();
    }
  }

  /** Starts the session, runs `op`, and disposes the session's update routing when `op` settles. */
  async withSession<T>(op: (session: ActiveSession) => MaybePromise<T>): Promise<T> {
    const session = await this.start();
    try {
      return await op(session);
    } finally {
      session.dispose();
    }
  }
}

/** Applies a `capabilities` patch: omitted leaves it, `null` clears it, an object replaces it. */
function applyCancelCapability(cancellable: Set<string>, id: string, capabilities: unknown): void {
  if (capabilities === undefined) return;
  const cancel =
    capabilities !== null && typeof capabilities === "object"
      ? (capabilities as { cancel?: unknown }).cancel
      : undefined;
  if (cancel !== undefined && cancel !== null) cancellable.add(id);
  else cancellable.delete(id);
}

/**
 * A started v2 session: `prompt()` submits user content, `nextUpdate()` reads the session's updates in arrival
 * order (idle snapshots as `stop` messages). It tracks, as updates arrive (before they are read): the config
 * options, the latest background-work list, and which tool calls and terminals advertise `cancel`.
 */
export class ActiveSession implements SessionListener {
  readonly queue = new AsyncQueue<ActiveSessionMessage>();
  private currentConfigOptions: SessionConfigOption[] | undefined;
  private latestBackground: readonly BackgroundWork[] | undefined;
  private readonly cancellableToolCalls = new Set<string>();
  private readonly cancellableTerminals = new Set<string>();
  private readonly detach: () => void;
  private readonly onClose: () => void;

  /**
   * @internal Get one from `SessionBuilder.start`. Updates kept from before the session attached are applied in
   * their place around the response (`responsePosition`): the response's `configOptions` are newer than a
   * `config_option_update` sent before it, older than one sent after it.
   */
  constructor(
    private readonly requester: SessionRequester,
    private readonly response: NewSessionResponse,
    responsePosition?: number,
  ) {
    const signal = requester.feed.connection.signal;
    this.onClose = () => this.queue.fail(signal.reason ?? new Error("ACP connection closed"));
    if (signal.aborted) this.onClose();
    else signal.addEventListener("abort", this.onClose, { once: true });
    this.detach = requester.feed.attach(response.sessionId, this, responsePosition, () => {
      if (response.configOptions !== undefined && response.configOptions !== null)
        this.currentConfigOptions = response.configOptions;
    });
  }

  /** The session id `session/new` returned. */
  get sessionId(): string {
    return this.response.sessionId;
  }

  /** The whole `session/new` response. */
  get newSessionResponse(): NewSessionResponse {
    return this.response;
  }

  /** The `_meta` of the `session/new` response. */
  get meta(): NewSessionResponse["_meta"] {
    return this.response._meta;
  }

  /** The current config options: from `session/new`, then each `config_option_update` and `setConfigOption` answer. */
  get configOptions(): SessionConfigOption[] | undefined {
    return this.currentConfigOptions;
  }

  /**
   * The `background` list of the latest `state_update`, or undefined while background work is not reported (a
   * snapshot without a list, a malformed one, or a state this version does not know resets it).
   */
  get background(): readonly BackgroundWork[] | undefined {
    return this.latestBackground;
  }

  /** @internal Applied to each message as it arrives, before it is read. */
  observe(message: ActiveSessionMessage): void {
    const update = message.update as Record<string, unknown> & SessionUpdate;
    if (SessionUpdate.isConfigOptionUpdate(update)) {
      this.currentConfigOptions = update.configOptions;
    } else if (SessionUpdate.isStateUpdate(update)) {
      const background = (update as { background?: unknown }).background;
      this.latestBackground =
        !StateUpdate.isCustom(update) && Array.isArray(background) ? (background as BackgroundWork[]) : undefined;
    } else if (SessionUpdate.isToolCallUpdate(update)) {
      applyCancelCapability(this.cancellableToolCalls, update.toolCallId, update.capabilities);
    } else if (SessionUpdate.isTerminalUpdate(update)) {
      applyCancelCapability(this.cancellableTerminals, update.terminalId, update.capabilities);
    }
  }

  /**
   * Whether `request`'s subject is work listed in the latest `background` list (a tool call, or a command's tool
   * call or terminal). `session/cancel` does not cover such work, so its permission requests stay open. False
   * also for requests without a subject and while background work is not reported.
   */
  isForBackgroundWork(request: RequestPermissionRequest): boolean {
    const background = this.latestBackground;
    const subject = request.subject;
    if (!background || !subject) return false;
    let toolCallId: string | undefined;
    let terminalId: string | undefined;
    if (RequestPermissionSubject.isToolCall(subject)) toolCallId = subject.toolCall.toolCallId;
    else if (RequestPermissionSubject.isCommand(subject)) {
      toolCallId = subject.toolCallId ?? undefined;
      terminalId = subject.terminalId ?? undefined;
    }
    return background.some(
      (work) =>
        (toolCallId !== undefined && BackgroundWork.isToolCall(work) && work.toolCallId === toolCallId) ||
        (terminalId !== undefined && BackgroundWork.isTerminal(work) && work.terminalId === terminalId),
    );
  }

  /** Whether the tool call currently advertises `capabilities.cancel`. */
  canCancelToolCall(toolCallId: string): boolean {
    return this.cancellableToolCalls.has(toolCallId);
  }

  /** Whether the terminal currently advertises `capabilities.cancel`. */
  canCancelTerminal(terminalId: string): boolean {
    return this.cancellableTerminals.has(terminalId);
  }

  /**
   * Cancels one tool call (`tool_call/cancel`); rejects with a `TypeError`, sending nothing, unless it advertises
   * `cancel`. The answer means the agent accepted; a `tool_call_update` to a final status confirms it.
   */
  cancelToolCall(toolCallId: string, options?: SendRequestOptions): Promise<CancelToolCallResponse> {
    if (!this.canCancelToolCall(toolCallId))
      return Promise.reject(new TypeError(`Tool call ${JSON.stringify(toolCallId)} does not advertise cancel`));
    return this.requester.request(
      "tool_call/cancel",
      { sessionId: this.sessionId, toolCallId },
      options,
    ) as Promise<CancelToolCallResponse>;
  }

  /**
   * Stops a terminal's process (`terminal/cancel`); rejects with a `TypeError`, sending nothing, unless it
   * advertises `cancel`. A `terminal_update` with `exitStatus` confirms it; the terminal is not released.
   */
  cancelTerminal(terminalId: string, options?: SendRequestOptions): Promise<CancelTerminalResponse> {
    if (!this.canCancelTerminal(terminalId))
      return Promise.reject(new TypeError(`Terminal ${JSON.stringify(terminalId)} does not advertise cancel`));
    return this.requester.request(
      "terminal/cancel",
      { sessionId: this.sessionId, terminalId },
      options,
    ) as Promise<CancelTerminalResponse>;
  }

  /**
   * Submits a prompt (a string becomes one text block; one block is wrapped). Resolves when the agent accepted it
   * (inserted it into the conversation, or held it to insert later), not when it was processed; a held prompt is
   * withdrawn by aborting `options.cancellationSignal`. Updates have no fixed order relative to this answer.
   */
  prompt(prompt: string | ContentBlock | ContentBlock[], options?: SendRequestOptions): Promise<PromptResponse> {
    const blocks =
      typeof prompt === "string"
        ? [{ type: "text", text: prompt } as ContentBlock]
        : Array.isArray(prompt)
          ? prompt
          : [prompt];
    if (blocks.length === 0) return Promise.reject(new TypeError("A prompt must contain at least one content block"));
    return this.requester.request(
      "session/prompt",
      { sessionId: this.sessionId, prompt: blocks },
      options,
    ) as Promise<PromptResponse>;
  }

  /** Sets a config option (`session/set_config_option`); the answer's complete list replaces `configOptions`. */
  async setConfigOption(
    request: ActiveSessionSetConfigOptionRequest,
    options?: SendRequestOptions,
  ): Promise<SetSessionConfigOptionResponse> {
    const response = (await this.requester.request(
      "session/set_config_option",
      { ...request, sessionId: this.sessionId },
      options,
    )) as SetSessionConfigOptionResponse;
    this.currentConfigOptions = response.configOptions;
    return response;
  }

  /** The next update or `stop` of this session, in arrival order. Aborting `signal` ends this read only. */
  nextUpdate(signal?: AbortSignal): Promise<ActiveSessionMessage> {
    return this.queue.next(signal);
  }

  /**
   * Agent text from the queue until the next idle `stop`: `agent_message` replaces its message's content,
   * `agent_message_chunk` appends; other updates and non-text content are skipped. One reader at a time.
   */
  async readTextUntilIdle(signal?: AbortSignal): Promise<string> {
    const order: string[] = [];
    const contents = new Map<string, ContentBlock[]>();
    const contentOf = (messageId: string): ContentBlock[] => {
      let content = contents.get(messageId);
      if (!content) {
        order.push(messageId);
        contents.set(messageId, (content = []));
      }
      return content;
    };
    for (;;) {
      const message = await this.nextUpdate(signal);
      if (message.kind === "stop") {
        return order
          .flatMap((id) => contents.get(id) ?? [])
          .filter(ContentBlockGuards.isText)
          .map((block) => block.text)
          .join("");
      }
      const update = message.update;
      if (SessionUpdate.isAgentMessage(update)) {
        contentOf(update.messageId);
        if (update.content !== undefined) contents.set(update.messageId, update.content ?? []);
      } else if (SessionUpdate.isAgentMessageChunk(update)) {
        contentOf(update.messageId).push(update.content);
      }
    }
  }

  /** Stops routing updates to this helper (the session itself stays open on the agent). */
  dispose(): void {
    this.detach();
    this.requester.feed.connection.signal.removeEventListener("abort", this.onClose);
    this.queue.fail(new Error("Active session disposed"));
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
