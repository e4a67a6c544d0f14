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
