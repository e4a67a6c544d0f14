/**
 * Rules on the updates of a session over time: a prompt turn's updates come before its response, `session/load`
 * replays the history before answering, `session/resume` replays nothing. "Turn content" is messages, thoughts, tool
 * calls and plans (`TURN_CONTENT_UPDATES`); other update kinds describe the session and may come at any time.
 */
import { sessionIdOf, TURN_CONTENT_UPDATES, updateKindOf, type WireEvent } from "../events.js";
import { SPEC, type Rule, type RuleContext } from "./types.js";

/** A session's state as far as the timing of its updates goes. */
type Phase =
  | { kind: "after-prompt"; response: WireEvent }
  | { kind: "after-load"; response: WireEvent }
  | { kind: "resuming"; request: WireEvent };

function stopReasonOf(response: WireEvent): string {
  if (response.error !== undefined) return "an error";
  const reason = (response.result as { stopReason?: unknown } | undefined)?.stopReason;
  return `stopReason ${JSON.stringify(reason)}`;
}

/**
 * One state machine for three rules: each reports only its own phase. Per session: a prompt or load request clears
 * the phase; a prompt response starts `after-prompt`, a load response `after-load`, a resume request `resuming`
 * (until its response).
 */
function sessionPhases(
  context: RuleContext,
  phase: Phase["kind"],
  message: (event: WireEvent, kind: string, state: Phase) => string,
) {
  const phases = new Map<string, Phase>();
  const reported = new Set<string>();
  return {
    onEvent(event: WireEvent) {
      if (event.from === "client" && event.type === "request") {
        const sessionId = sessionIdOf(event);
        if (sessionId === undefined) return;
        if (event.method === "session/prompt" || event.method === "session/load") phases.delete(sessionId);
        else if (event.method === "session/resume") phases.set(sessionId, { kind: "resuming", request: event });
        reported.delete(sessionId);
        return;
      }
      if (event.from !== "agent") return;
      if (event.type === "response" && event.request) {
        const sessionId = sessionIdOf(event);
        if (sessionId === undefined) return;
        if (event.method === "session/prompt") phases.set(sessionId, { kind: "after-prompt", response: event });
        else if (event.method === "session/load" && event.error === undefined)
          phases.set(sessionId, { kind: "after-load", response: event });
        else if (event.method === "session/resume") phases.delete(sessionId);
        return;
      }
      const kind = updateKindOf(event);
      if (kind === undefined || !TURN_CONTENT_UPDATES.has(kind)) return;
      const sessionId = sessionIdOf(event)!;
      const state = phases.get(sessionId);
      if (state?.kind !== phase || reported.has(sessionId)) return;
      reported.add(sessionId);
      context.report({
        side: "agent",
        event,
        path: "$.params.update.sessionUpdate",
        message: message(event, kind, state),
      });
    },
  };
}

/** `prompt.update-after-response`: no update of a turn after the turn's `session/prompt` response. */
export const updateAfterResponseRule: Rule = {
  id: "prompt.update-after-response",
  spec: `${SPEC}/prompt-turn#cancellation`,
  description: "Every update of a prompt turn is sent before the turn's session/prompt response",
  severity: "error",
  judges: ["agent"],
  create(context) {
    return sessionPhases(context, "after-prompt", (event, kind, state) => {
      const response = (state as { response: WireEvent }).response;
      return (
        `The agent sent an update (${kind}) for session ${sessionIdOf(event)} after it answered the turn's ` +
        `session/prompt (id ${JSON.stringify(response.id)}, ${stopReasonOf(response)}). An agent MUST send ` +
        `every update of a turn before responding to session/prompt; a client may already have closed the turn.`
      );
    });
  },
};

/** `load.replay-before-response`: `session/load` streams the whole history, then answers. */
export const loadReplayRule: Rule = {
  id: "load.replay-before-response",
  spec: `${SPEC}/session-setup#loading-sessions`,
  description: "session/load replays the conversation with session/update before it responds",
  severity: "error",
  judges: ["agent"],
  create(context) {
    return sessionPhases(context, "after-load", (event, kind, state) => {
      const response = (state as { response: WireEvent }).response;
      return (
        `The agent sent an update (${kind}) for session ${sessionIdOf(event)} after answering session/load (id ` +
        `${JSON.stringify(response.id)}) and before any new prompt. The agent MUST replay the entire ` +
        `conversation and only then respond to session/load.`
      );
    });
  },
};

/** `resume.no-replay`: `session/resume` restores a session without replaying its history. */
export const resumeNoReplayRule: Rule = {
  id: "resume.no-replay",
  spec: `${SPEC}/session-setup#resuming-sessions`,
  description: "session/resume does not replay the conversation history",
  severity: "error",
  judges: ["agent"],
  create(context) {
    return sessionPhases(
      context,
      "resuming",
      (event, kind) =>
        `The agent sent an update (${kind}) for session ${sessionIdOf(event)} while answering session/resume. ` +
        `Unlike session/load, the agent MUST NOT replay the conversation history on session/resume.`,
    );
  },
};
