/**
 * `acp chat --attach ID URL` (controller) and `--observe ID URL` (observer): the chat joins a live session on an
 * `acp serve` with shared sessions instead of starting one (`session/attach`, whole history replayed). An observer's
 * prompts are refused by the server with an error that says so.
 */

/** The params of the chat's `session/attach`. */
export function attachParams(sessionId: string, role: "controller" | "observer"): Record<string, unknown> {
  return {
    sessionId,
    role,
    historyPolicy: "full",
    clientInfo: { name: "acp-chat", version: "0.1.0" },
    _meta: { acpkit: { role } },
  };
}

/** A `session/update` as the chat's transcript router takes it. */
export interface RoutedUpdate {
  sessionId: string;
  update: unknown;
}

/**
 * What the chat shows of the server's own updates in a shared session: another client's prompt
 * (`prompt_received` from someone else) becomes a user message in the transcript; the chat's own prompt is already
 * there (it attached under `own` client ids). A permission request the agent put to the controllers
 * (`_acpkit/session/permission_pending`, what an observer is told instead of being asked) and how it was settled
 * (`permission_resolved`: which option, by whom) become notices. The rest (`turn_complete`, `client_disconnected`)
 * passes on to the transcript's unknown updates.
 */
export class SharedEcho {
  readonly own = new Set<string>();
  /** The option names of the permission requests seen waiting, by permissionId, to name the chosen one. */
  readonly #options = new Map<string, Map<string, string>>();

  /** Whether the chat attached to a shared session (it then sees other clients' turns). */
  get attached(): boolean {
    return this.own.size > 0;
  }

  /** The notice for an extension notification the chat shows (see the class comment), else undefined. */
  fromExtension(method: string, params: Record<string, unknown>): RoutedUpdate | undefined {
    if (method !== "_acpkit/session/permission_pending" || typeof params.sessionId !== "string") return undefined;
    const toolCall = (params.toolCall ?? {}) as { title?: unknown };
    const options = Array.isArray(params.options) ? (params.options as { optionId?: unknown; name?: unknown }[]) : [];
    const names = new Map<string, string>();
    for (const option of options) {
      if (typeof option.optionId === "string")
        names.set(option.optionId, typeof option.name === "string" ? option.name : option.optionId);
    }
    if (typeof params.permissionId === "string") this.#options.set(params.permissionId, names);
    const title = typeof toolCall.title === "string" ? toolCall.title : "a tool call";
    return {
      sessionId: params.sessionId,
      update: {
        sessionUpdate: "notice",
        severity: "info",
        title: `Permission asked of the controllers: ${title}`,
        description:
          names.size > 0 ? `Waiting for an answer: ${[...names.values()].join(" / ")}` : "Waiting for an answer",
      },
    };
  }

  toTranscript<T extends { sessionId: string; update: unknown }>(params: T): T {
    const update = params.update as { sessionUpdate?: string; prompt?: unknown; sentBy?: { clientId?: string } };
    if (update.sessionUpdate === "permission_resolved") return { ...params, update: this.#resolved(params.update) };
    if (update.sessionUpdate !== "prompt_received" || this.own.has(update.sentBy?.clientId ?? "")) return params;
    const blocks = Array.isArray(update.prompt) ? (update.prompt as { type?: string; text?: string }[]) : [];
    const text = blocks.map((block) => (block.type === "text" ? (block.text ?? "") : `[${block.type}]`)).join("");
    const who = (update.sentBy as { name?: string } | undefined)?.name;
    const promptId = (update as { _meta?: { acpkit?: { promptId?: string } } })._meta?.acpkit?.promptId;
    return {
      ...params,
      update: {
        sessionUpdate: "user_message_chunk",
        // Its own message, not glued to the previous one.
        messageId: `shared-prompt-${promptId ?? Math.random().toString(36).slice(2)}`,
        content: { type: "text", text: who === undefined ? text : `(${who}) ${text}` },
      },
    };
  }

  /** A `permission_resolved` as a notice: the option chosen (by name when the request was seen) and who chose it. */
  #resolved(update: unknown): unknown {
    const resolved = update as {
      chosenOptionId?: unknown;
      outcome?: { outcome?: unknown };
      resolvedBy?: { clientId?: unknown; name?: unknown };
      _meta?: { acpkit?: { permissionId?: unknown } };
    };
    const permissionId = resolved._meta?.acpkit?.permissionId;
    const names = typeof permissionId === "string" ? this.#options.get(permissionId) : undefined;
    if (typeof permissionId === "string") this.#options.delete(permissionId);
    const by = resolved.resolvedBy;
    const who =
      by?.clientId === "agent"
        ? "the agent's end"
        : typeof by?.name === "string"
          ? by.name
          : typeof by?.clientId === "string"
            ? this.own.has(by.clientId)
              ? "you"
              : by.clientId
            : "someone";
    const chosen = typeof resolved.chosenOptionId === "string" ? resolved.chosenOptionId : undefined;
    return {
      sessionUpdate: "notice",
      severity: "info",
      title:
        chosen === undefined
          ? `Permission request withdrawn (${who === "the agent's end" ? "the turn ended" : `cancelled by ${who}`})`
          : `Permission answered by ${who}: ${names?.get(chosen) ?? chosen}`,
    };
  }
}

const echoes = new WeakMap<object, SharedEcho>();

/** The echo of one chat (keyed by its transcript router). */
export function sharedEchoOf(router: object): SharedEcho {
  let echo = echoes.get(router);
  if (echo === undefined) echoes.set(router, (echo = new SharedEcho()));
  return echo;
}
