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

/**
 * What the chat shows of the server's own updates in a shared session: another client's prompt
 * (`prompt_received` from someone else) becomes a user message in the transcript; the chat's own prompt is already
 * there (it attached under `own` client ids), and the rest (`turn_complete`, `permission_resolved`,
 * `client_disconnected`) passes on to the transcript's unknown updates.
 */
export class SharedEcho {
  readonly own = new Set<string>();

  /** Whether the chat attached to a shared session (it then sees other clients' turns). */
  get attached(): boolean {
    return this.own.size > 0;
  }

  toTranscript<T extends { sessionId: string; update: unknown }>(params: T): T {
    const update = params.update as { sessionUpdate?: string; prompt?: unknown; sentBy?: { clientId?: string } };
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
}

const echoes = new WeakMap<object, SharedEcho>();

/** The echo of one chat (keyed by its transcript router). */
export function sharedEchoOf(router: object): SharedEcho {
  let echo = echoes.get(router);
  if (echo === undefined) echoes.set(router, (echo = new SharedEcho()));
  return echo;
}
