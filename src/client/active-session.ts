/**
 * The client's session helpers of the 2.x API: `SessionBuilder` (from `ctx.buildSession(cwd)`) starts a session,
 * `ActiveSession` prompts it and reads its updates in order.
 */
import type { MaybePromise, SendRequestOptions } from "../jsonrpc/index.js";
import type {
  ContentBlock,
  McpServer,
  NewSessionRequest,
  NewSessionResponse,
  PromptResponse,
  SessionModeState,
} from "../protocol/index.js";
import { AsyncQueue, type QueueSlot } from "./async-queue.js";
import type { ActiveSessionMessage, ActiveSessionFeed } from "./active-session-feed.js";

export type { ActiveSessionMessage } from "./active-session-feed.js";

function copyRequest(request: NewSessionRequest): NewSessionRequest {
  const copy: NewSessionRequest = { ...request, mcpServers: [...(request.mcpServers ?? [])] };
  if (request.additionalDirectories) copy.additionalDirectories = [...request.additionalDirectories];
  return copy;
}

/**
 * Builds the `session/new` request of a session, then starts it. Paths in ACP payloads must be absolute.
 */
export class SessionBuilder {
  private request: NewSessionRequest;

  /** @internal Get one from `ClientContext.buildSession`. */
  constructor(
    private readonly feed: ActiveSessionFeed,
    request: NewSessionRequest,
  ) {
    this.request = copyRequest(request);
  }

  /** The `session/new` request that will be sent (a copy: changing it does not change the builder). */
  toRequest(): NewSessionRequest {
    return copyRequest(this.request);
  }

  /** Replaces the additional workspace roots (absolute paths) that widen the session's file-system scope. */
  withAdditionalDirectories(additionalDirectories: string[]): this {
    this.request = { ...this.request, additionalDirectories: [...additionalDirectories] };
    return this;
  }

  /** Adds one MCP server to the request. */
  withMcpServer(mcpServer: McpServer): this {
    this.request = { ...this.request, mcpServers: [...this.request.mcpServers, mcpServer] };
    return this;
  }

  /**
   * Sends `session/new` and returns the active session. Updates the agent sends for the new session before its
   * response arrives are not lost: they are the first the session yields. `dispose()` it when done.
   */
  async start(options?: SendRequestOptions): Promise<ActiveSession> {
    const endStart = this.feed.beginStart();
    try {
      const response = await this.feed.connection.request<NewSessionResponse>("session/new", this.toRequest(), options);
      return new ActiveSession(this.feed, response);
    } finally {
      endStart();
    }
  }

  /** Starts the session, runs `op` with it, and disposes it when `op` settles. */
  async withSession<T>(op: (session: ActiveSession) => MaybePromise<T>): Promise<T> {
    const session = await this.start();
    try {
      return await op(session);
    } finally {
      session.dispose();
    }
  }
}

/**
 * A session the client started: `prompt()` sends user content, `nextUpdate()` reads the session's updates and
 * each turn's `stop`, in the order the agent sent them.
 *
 * Contracts:
 * - Every `session/update` for this session id is queued from the moment `session/new` is sent until
 *   `dispose()`, including updates sent after a prompt's response (they follow its `stop`) and kinds this
 *   version does not know.
 * - `prompt()`'s response is also queued as a `stop` message at the place it arrived; a failed prompt queues
 *   its error instead (rejecting `nextUpdate()`), and the next `prompt()` drops errors still queued.
 * - When the connection closes, `nextUpdate()` yields what is queued, then rejects with the close reason.
 *   After `dispose()` it rejects with "Active session disposed".
 */
export class ActiveSession implements Disposable {
  private readonly queue = new AsyncQueue<ActiveSessionMessage>();
  private detach: (() => void) | undefined;
  private readonly onClose: () => void;

  /** @internal Get one from `SessionBuilder.start`. */
  constructor(
    private readonly feed: ActiveSessionFeed,
    private readonly response: NewSessionResponse,
  ) {
    this.detach = feed.attach(response.sessionId, this.queue);
    const signal = feed.connection.signal;
    this.onClose = () => this.queue.fail(signal.reason);
    if (signal.aborted) this.onClose();
    else signal.addEventListener("abort", this.onClose, { once: true });
  }

  /** The session id from `session/new`. */
  get sessionId(): string {
    return this.response.sessionId;
  }

  /** The mode state from `session/new`, if the agent sent one. */
  get modes(): SessionModeState | null | undefined {
    return this.response.modes;
  }

  /** The `_meta` of the `session/new` response. */
  get meta(): { [key: string]: unknown } | null | undefined {
    return this.response._meta;
  }

  /** The whole `session/new` response. */
  get newSessionResponse(): NewSessionResponse {
    return this.response;
  }

  /**
   * Sends a prompt (`session/prompt`): a string becomes one text block, a block is wrapped in an array. Resolves
   * with the response, which is also queued as a `stop` message. Cancel with `session/cancel` (the turn then
   * stops with `cancelled`) or with `options.cancellationSignal` (`$/cancel_request`).
   */
  prompt(prompt: string | ContentBlock | ContentBlock[], options?: SendRequestOptions): Promise<PromptResponse> {
    this.queue.clearErrors();
    let slot: QueueSlot<ActiveSessionMessage> | undefined;
    const response = this.feed.sendPrompt({ sessionId: this.sessionId, prompt: promptBlocks(prompt) }, options, () => {
      slot = this.queue.reserve();
    });
    response.then(
      (value) => {
        const stop: ActiveSessionMessage = { kind: "stop", response: value, stopReason: value.stopReason };
        if (slot) slot.resolve(stop);
        else this.queue.push(stop);
      },
      (error: unknown) => {
        if (slot) slot.reject(error);
        else this.queue.pushError(error);
      },
    );
    return response;
  }

  /** Reads the next update or `stop` of this session. */
  nextUpdate(): Promise<ActiveSessionMessage> {
    return this.queue.next();
  }

  /**
   * Reads until the current turn's `stop` and returns the text of its `agent_message_chunk` updates with text
   * content, concatenated. Other updates are skipped: use `nextUpdate()` to see them.
   */
  async readText(): Promise<string> {
    let text = "";
    for (;;) {
      const message = await this.nextUpdate();
      if (message.kind === "stop") return text;
      const update = message.update as { sessionUpdate: string; content?: { type?: string; text?: unknown } };
      if (
        update.sessionUpdate === "agent_message_chunk" &&
        update.content?.type === "text" &&
        typeof update.content.text === "string"
      ) {
        text += update.content.text;
      }
    }
  }

  /** Stops routing updates here (the agent's session stays open: close or delete it with a request). Idempotent. */
  dispose(): void {
    this.detach?.();
    this.detach = undefined;
    this.feed.connection.signal.removeEventListener("abort", this.onClose);
    this.queue.fail(new Error("Active session disposed"));
  }

  /** `dispose()` at the end of a `using` scope. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

function promptBlocks(prompt: string | ContentBlock | ContentBlock[]): ContentBlock[] {
  if (typeof prompt === "string") return [{ type: "text", text: prompt }];
  return Array.isArray(prompt) ? prompt : [prompt];
}
