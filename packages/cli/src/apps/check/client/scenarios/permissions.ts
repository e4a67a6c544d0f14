/** Permission requests: answered with an offered option, and "cancelled" once the client cancels the turn. */
import { SPEC } from "@acpkit/sdk/wire";
import type { WireEvent } from "@acpkit/sdk/wire";
import { CheckFailed, NotExercised } from "../../results.js";
import type { ClientScenario } from "../scenario.js";

const ALL_KINDS = [
  { optionId: "acp-check-allow-once", name: "Allow once", kind: "allow_once" },
  { optionId: "acp-check-allow-always", name: "Allow always", kind: "allow_always" },
  { optionId: "acp-check-reject-once", name: "Reject once", kind: "reject_once" },
  { optionId: "acp-check-reject-always", name: "Reject always", kind: "reject_always" },
];

function toolCall(id: string) {
  return { toolCallId: id, title: "Write acp-check.txt", kind: "edit", status: "pending", locations: [] };
}

function outcomeOf(answer: WireEvent): { outcome?: string; optionId?: string } {
  return ((answer.result as { outcome?: unknown } | undefined)?.outcome ?? {}) as {
    outcome?: string;
    optionId?: string;
  };
}

export const permissionScenario: ClientScenario = {
  id: "permission.options",
  title: "session/request_permission with every option kind is answered with an offered option",
  spec: `${SPEC}/tool-calls#requesting-permission`,
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    const answers: string[] = [];
    for (const [i, options] of [ALL_KINDS, ALL_KINDS.filter((o) => o.kind.startsWith("reject"))].entries()) {
      const call = toolCall(`acp-check-tool-${i + 1}`);
      agent.update(turn.sessionId, { sessionUpdate: "tool_call", ...call });
      const answer = await agent.ask(
        "session/request_permission",
        { sessionId: turn.sessionId, toolCall: call, options },
        ctx.target.turnTimeoutMs,
      );
      if (answer.error !== undefined)
        throw new CheckFailed(
          `the client answered session/request_permission with an error (${JSON.stringify(answer.error)}); it ` +
            `MUST answer with an outcome: an option it was offered, or "cancelled" for a cancelled turn`,
        );
      const outcome = outcomeOf(answer);
      if (outcome.outcome === "selected" && !options.some((o) => o.optionId === outcome.optionId)) {
        throw new CheckFailed(
          `the client selected option ${JSON.stringify(outcome.optionId)}, which the agent did not offer ` +
            `(${options.map((o) => o.optionId).join(", ")}). The selected optionId MUST be one of the request's ` +
            `options.`,
        );
      }
      if (outcome.outcome === "cancelled")
        ctx.warn('the client answered a permission request of a running (not cancelled) turn "cancelled"');
      answers.push(
        outcome.outcome === "selected"
          ? options.find((o) => o.optionId === outcome.optionId)!.kind
          : String(outcome.outcome),
      );
      agent.update(turn.sessionId, {
        sessionUpdate: "tool_call_update",
        toolCallId: call.toolCallId,
        status: "completed",
      });
    }
    await ctx.finish(agent, turn);
    return `answered ${answers.join(", then ")}`;
  },
};

export const permissionCancelScenario: ClientScenario = {
  id: "permission.cancelled",
  title: 'after session/cancel, a pending permission request is answered "cancelled"',
  spec: `${SPEC}/prompt-turn#cancellation`,
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    const call = toolCall("acp-check-tool-cancel");
    agent.update(turn.sessionId, { sessionUpdate: "tool_call", ...call });
    const { response } = agent.peer.request("session/request_permission", {
      sessionId: turn.sessionId,
      toolCall: call,
      options: ALL_KINDS,
    });
    const early = await Promise.race([
      response.then(
        (r) => r,
        () => undefined,
      ),
      new Promise<undefined>((resolve) => setTimeout(resolve, 500, undefined)),
    ]);
    if (early)
      throw new NotExercised(
        `the client answered the permission request at once ` +
          `(${outcomeOf(early).outcome}${outcomeOf(early).optionId ? ` ${outcomeOf(early).optionId}` : ""}), so ` +
          `none was pending when it could cancel; run it with a policy that asks the user`,
      );
    await ctx.cancelFromClient(agent, turn);
    const answer = await Promise.race([
      response.then(
        (r) => r,
        () => undefined,
      ),
      new Promise<undefined>((resolve) => setTimeout(resolve, 5000, undefined)),
    ]);
    if (!answer)
      throw new CheckFailed(
        "the client sent session/cancel but left its pending session/request_permission unanswered. The " +
          'client MUST answer every pending permission request of a cancelled turn with the "cancelled" ' +
          "outcome.",
      );
    const outcome = outcomeOf(answer);
    if (answer.error !== undefined || outcome.outcome !== "cancelled")
      throw new CheckFailed(
        `after session/cancel the client answered its pending permission request ` +
          `${answer.error !== undefined ? "with an error" : `with outcome ${JSON.stringify(outcome.outcome)}`}. ` +
          `The client MUST answer it with the "cancelled" outcome.`,
      );
    await ctx.finish(agent, turn, "cancelled");
    return 'answered "cancelled" after session/cancel';
  },
};
