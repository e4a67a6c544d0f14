/**
 * Cancellation: `session/cancel` is answered with stopReason "cancelled" (latency measured), a pending permission
 * request does not block it (and is ideally cancelled with `$/cancel_request`), and `$/cancel_request` on a
 * prompt gets an answer.
 */
import { SPEC } from "@acpkit/sdk/wire";
import type { WireEvent } from "@acpkit/sdk/wire";
import { CheckFailed, NotExercised } from "../../results.js";
import { describeError, type AgentProcess, type Turn } from "../agent-process.js";
import { CANCEL_DEADLINE_MS, SETTLE_MS, sleep, type AgentScenario, type AgentScenarioContext } from "../scenario.js";

/** How long the `/slow` turns take. */
const SLOW_MS = 5000;

/**
 * Waits until the turn is surely under way: its first update (at most 500 ms), then a short settle time in which a
 * turn that did not understand the request ends by itself. Not exercised if the turn ended: cancelling a turn that
 * is over proves nothing (and its end_turn, crossing the cancel on the pipe, is no violation).
 */
async function working(ctx: AgentScenarioContext, agent: AgentProcess, turn: Turn): Promise<void> {
  await agent.peer
    .waitFor((e) => e.type === "notification" && (e.params as { sessionId?: unknown }).sessionId === turn.sessionId, {
      what: "a first update",
      timeoutMs: 500,
      since: turn.since,
    })
    .catch(() => {});
  await sleep(SETTLE_MS);
  if (answered(agent, turn))
    throw new NotExercised(`the turn ended by itself before it could be cancelled${ctx.hint()}`);
}

function answered(agent: AgentProcess, turn: Turn): WireEvent | undefined {
  return agent.peer.events.find((e) => e.type === "response" && e.from === "agent" && e.id === turn.request.id);
}

/** The answer to a cancelled turn, or a failure saying the agent ignored the cancel. */
async function answerAfterCancel(agent: AgentProcess, turn: Turn, how: string): Promise<WireEvent> {
  const deadline = new Promise<undefined>((resolve) => setTimeout(resolve, CANCEL_DEADLINE_MS, undefined));
  const answer = await Promise.race([turn.response.catch(() => undefined), deadline]);
  if (answer) return answer;
  if (agent.peer.closed)
    throw new CheckFailed(`the agent exited after ${how} without answering the turn; ${agent.stderr()}`);
  throw new CheckFailed(
    `the agent did not answer the turn within ${CANCEL_DEADLINE_MS / 1000} s of ${how}: it ignores ` +
      `cancellation. After ${how} the agent MUST stop and answer session/prompt with stopReason "cancelled".`,
  );
}

function checkCancelled(answer: WireEvent, how: string, afterMs: number): void {
  if (answer.error !== undefined)
    throw new CheckFailed(
      `the agent answered the cancelled turn with an error (${describeError(answer.error)}) ` +
        `${Math.round(afterMs)} ms after ${how}. Agents MUST catch the errors of an aborted turn and answer ` +
        `with stopReason "cancelled".`,
    );
  const stopReason = (answer.result as { stopReason?: unknown } | undefined)?.stopReason;
  if (stopReason !== "cancelled")
    throw new CheckFailed(
      `the agent answered stopReason ${JSON.stringify(stopReason)} ${Math.round(afterMs)} ms after ${how}. ` +
        `After session/cancel the agent MUST answer the prompt with stopReason "cancelled".`,
    );
}

export const cancelScenario: AgentScenario = {
  id: "cancel.prompt",
  title: 'session/cancel: the turn is answered with stopReason "cancelled", quickly',
  spec: `${SPEC}/prompt-turn#cancellation`,
  async run(ctx) {
    const { agent, sessionId } = await ctx.session();
    const turn = agent.prompt(sessionId, ctx.prompt({ ms: SLOW_MS }));
    await working(ctx, agent, turn);
    const cancel = agent.peer.notify("session/cancel", { sessionId });
    const answer = await answerAfterCancel(agent, turn, "session/cancel");
    const latency = answer.time - cancel.time;
    ctx.measure("cancelLatencyMs", latency);
    checkCancelled(answer, "session/cancel", latency);
    if (latency > 2000)
      ctx.warn(
        `the agent took ${Math.round(latency)} ms to answer the cancelled turn; it SHOULD stop all work as ` +
          `soon as possible`,
      );
    return `answered "cancelled" ${Math.round(latency)} ms after session/cancel`;
  },
};

export const cancelPendingScenario: AgentScenario = {
  id: "cancel.pending-request",
  title: 'session/cancel with a permission request pending: the turn still ends "cancelled"',
  spec: `${SPEC}/cancellation#example-cascading-cancellation-flow`,
  async run(ctx) {
    const { agent, sessionId } = await ctx.session();
    agent.permissionPolicy = () => "hold";
    const file = "acp-check-cancelled.txt";
    const turn = agent.prompt(sessionId, ctx.prompt({ path: file, text: "written-after-cancel" }));
    const asked = await Promise.race([
      agent.peer.waitFor((e) => e.type === "request" && e.method === "session/request_permission", {
        what: "a permission request",
        timeoutMs: ctx.target.turnTimeoutMs,
        since: turn.since,
      }),
      turn.response.then(() => undefined),
    ]).catch(() => undefined);
    if (!asked) throw new NotExercised(`the agent did not ask permission during the turn${ctx.hint()}`);
    const cancel = agent.peer.notify("session/cancel", { sessionId });
    const cascaded = await agent.peer
      .waitFor(
        (e) =>
          e.type === "notification" &&
          e.method === "$/cancel_request" &&
          (e.params as { requestId?: unknown }).requestId === asked.id,
        { what: "$/cancel_request", timeoutMs: 1000, since: cancel.index },
      )
      .catch(() => undefined);
    // The client MUST answer its pending permission requests "cancelled" once it cancelled the turn.
    agent.peer.respond(asked, { outcome: { outcome: "cancelled" } });
    const answer = await answerAfterCancel(agent, turn, "session/cancel (with a permission request pending)");
    checkCancelled(answer, "session/cancel", answer.time - cancel.time);
    const wrote = agent.peer.events.some(
      (e) => e.index > cancel.index && e.method === "fs/write_text_file" && e.type === "request",
    );
    if (wrote)
      throw new CheckFailed(
        'the agent wrote the file after the turn was cancelled and the permission answered "cancelled".',
      );
    if (!cascaded)
      ctx.warn(
        `the agent did not cancel its pending session/request_permission (id ${JSON.stringify(asked.id)}) ` +
          `with $/cancel_request after session/cancel; it waited for the client's "cancelled" answer (see the ` +
          `cascading cancellation flow)`,
      );
    return cascaded
      ? 'the pending permission request was cancelled with $/cancel_request; the turn ended "cancelled"'
      : 'the turn ended "cancelled"';
  },
};

export const cancelRequestScenario: AgentScenario = {
  id: "cancel.request",
  title: "$/cancel_request on session/prompt: the request is answered (-32800 or a result)",
  spec: `${SPEC}/cancellation`,
  async run(ctx) {
    const { agent, sessionId } = await ctx.session();
    const turn = agent.prompt(sessionId, ctx.prompt({ ms: SLOW_MS }, "cancel.request"), SLOW_MS + CANCEL_DEADLINE_MS);
    await working(ctx, agent, turn);
    const cancel = agent.peer.notify("$/cancel_request", { requestId: turn.request.id });
    const answer = await turn.response.catch(() => undefined);
    if (!answer && agent.peer.closed)
      throw new CheckFailed(
        `the agent exited without answering the session/prompt whose $/cancel_request it received; ` +
          `${agent.stderr()}. On $/cancel_request the receiver MUST still answer the request: a result or error ` +
          `-32800.`,
      );
    // Honouring $/cancel_request is optional: an agent that does not may answer only when the turn ends, which offline
    // may be never.
    if (!answer)
      throw new NotExercised(
        `the agent had not answered the session/prompt ${Math.round((SLOW_MS + CANCEL_DEADLINE_MS) / 1000)} s ` +
          `after $/cancel_request: it does not act on it (optional), and the turn itself did not end`,
      );
    const latency = answer.time - cancel.time;
    ctx.measure("cancelRequestLatencyMs", latency);
    const code = (answer.error as { code?: unknown } | undefined)?.code;
    if (code === -32800) return `answered error -32800 ${Math.round(latency)} ms after $/cancel_request`;
    if (answer.error !== undefined)
      throw new CheckFailed(
        `the agent answered the session/prompt it was asked to cancel with error ` +
          `${describeError(answer.error)}. A cancelled request is answered with a result or error -32800 ` +
          `(Request Cancelled).`,
      );
    const stopReason = (answer.result as { stopReason?: unknown } | undefined)?.stopReason;
    if (stopReason === "cancelled")
      return `answered stopReason "cancelled" ${Math.round(latency)} ms after $/cancel_request`;
    ctx.warn(
      `the agent did not cancel the turn on $/cancel_request: it answered stopReason ` +
        `${JSON.stringify(stopReason)} ${Math.round(latency)} ms later. Honouring it is optional (an answer of ` +
        `-32800 or stopReason "cancelled" would say it did).`,
    );
    return "answered, without cancelling";
  },
};
