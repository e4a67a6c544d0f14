/** Prompt turns: a stop reason, nothing after the response; a stream of exactly N chunks before it. */
import { updateKindOf } from "@acpkit/sdk/wire";
import { SPEC } from "@acpkit/sdk/wire";
import { CheckFailed, NotExercised } from "../../results.js";
import { describeError } from "../agent-process.js";
import { LATE_UPDATE_GRACE_MS, sleep, type AgentScenario } from "../scenario.js";

export const turnScenario: AgentScenario = {
  id: "prompt.turn",
  title: "session/prompt: answered with a stop reason, every update before the response",
  spec: `${SPEC}/prompt-turn`,
  async run(ctx) {
    const { agent, sessionId } = await ctx.session();
    const turn = agent.prompt(sessionId, ctx.prompt());
    const answer = await agent.finish(turn, "session/prompt");
    if (answer.error !== undefined)
      throw new CheckFailed(`the agent answered a plain text prompt with an error: ${describeError(answer.error)}`);
    const until = agent.peer.events.indexOf(answer);
    await sleep(LATE_UPDATE_GRACE_MS);
    const kinds = [...new Set(agent.updates(sessionId, turn.since, until).map((e) => updateKindOf(e)))];
    const stopReason = (answer.result as { stopReason?: unknown }).stopReason;
    return `stopReason ${String(stopReason)}; updates: ${kinds.join(", ") || "none"}`;
  },
};

export const streamScenario: AgentScenario = {
  id: "prompt.stream",
  title: "session/prompt: a stream of exactly N message chunks, all before the response",
  spec: `${SPEC}/prompt-turn#3-agent-reports-output`,
  async run(ctx) {
    const count = 50;
    const { agent, sessionId } = await ctx.session();
    const turn = agent.prompt(sessionId, ctx.prompt({ count }));
    const answer = await agent.finish(turn, "the streaming prompt");
    const until = agent.peer.events.indexOf(answer);
    await sleep(LATE_UPDATE_GRACE_MS);
    const chunks = agent
      .updates(sessionId, turn.since, until)
      .filter((e) => updateKindOf(e) === "agent_message_chunk").length;
    const late = agent.updates(sessionId, until).filter((e) => updateKindOf(e) === "agent_message_chunk").length;
    if (chunks === count) return `${count} chunks, all before the response`;
    if (chunks + late === count)
      throw new CheckFailed(
        `${late} of the ${count} chunks came after the session/prompt response. Every update of a turn MUST ` +
          `come before its response.`,
      );
    throw new NotExercised(`asked for ${count} message chunks, the agent sent ${chunks}${ctx.hint()}`);
  },
};
