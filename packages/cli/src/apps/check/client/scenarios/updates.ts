/** Updates at awkward times: before session/new is answered, and after the prompt response. */
import { SPEC } from "@acpkit/sdk/wire";
import { CheckFailed, NotExercised } from "../../results.js";
import { describeExit } from "../client-run.js";
import type { ClientScenario } from "../scenario.js";

export const earlyUpdatesScenario: ClientScenario = {
  id: "updates.early",
  title: "updates sent before the session/new response are not lost",
  spec: `${SPEC}/session-setup#creating-a-session`,
  agent: ({ markers }) => ({
    beforeSessionAnswer: (sessionId, peer) => {
      markers.early = `acp-check-early-${Math.random().toString(36).slice(2, 10)}`;
      peer.notify("session/update", {
        sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${markers.early}\n` } },
      });
    },
  }),
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    agent.say(turn.sessionId, `${ctx.marker("turn")}\n`);
    const exit = await ctx.finish(agent, turn);
    if (!exit) throw new CheckFailed("the client did not exit after its turn ended");
    if (!ctx.shows(ctx.markers.turn!))
      throw new NotExercised(
        "the client does not print the agent's messages on stdout, so what it kept cannot be seen",
      );
    if (!ctx.shows(ctx.markers.early!))
      throw new CheckFailed(
        `the client lost the agent_message_chunk the agent sent for the new session just before answering ` +
          `session/new (its text ${ctx.markers.early} is not in the client's output). Updates for a session can ` +
          `arrive before the session/new response; a client MUST keep them for that session.`,
      );
    return "the early update was kept";
  },
};

export const lateUpdatesScenario: ClientScenario = {
  id: "updates.late",
  title: "updates sent after the prompt response (an agent's mistake) are not lost and do not break the client",
  spec: `${SPEC}/prompt-turn#cancellation`,
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    agent.update(turn.sessionId, {
      sessionUpdate: "tool_call",
      toolCallId: "acp-check-late-tool",
      title: "Late tool",
      kind: "other",
      status: "in_progress",
    });
    agent.say(turn.sessionId, `${ctx.marker("turn")}\n`);
    agent.end(turn);
    // Right behind the response on the same pipe, as an agent that makes this mistake sends them.
    agent.say(turn.sessionId, `${ctx.marker("late")}\n`);
    agent.update(turn.sessionId, {
      sessionUpdate: "tool_call_update",
      toolCallId: "acp-check-late-tool",
      status: "completed",
    });
    ctx.client.closeStdin();
    const exit = await ctx.client.exitWithin(ctx.target.turnTimeoutMs);
    if (!exit)
      throw new CheckFailed("the client did not exit after a turn whose response was followed by late updates");
    if (exit.code !== 0)
      throw new CheckFailed(
        `the client ended with ${describeExit(exit)} after a turn that ended end_turn and was followed by ` +
          `late updates. A client SHOULD stay tolerant of an agent's late updates.`,
      );
    if (!ctx.shows(ctx.markers.turn!))
      throw new NotExercised(
        "the client does not print the agent's messages on stdout, so whether it kept the late update cannot be seen",
      );
    if (!ctx.shows(ctx.markers.late!)) {
      throw new CheckFailed(
        `the client lost the agent_message_chunk the agent sent right after answering session/prompt (its ` +
          `text ${ctx.markers.late} is not in the client's output, while the turn's own text is). ` +
          ("Sending it late is the agent's mistake (an agent MUST send a turn's updates before its " +
            "session/prompt response), but the update still belongs to the session: ") +
          ("a client MUST NOT lose it. Keep reading the agent after the response and show such an update with " +
            "the turn that produced it (the spec has clients accept updates that arrive after they stopped " +
            "waiting for them: after session/cancel they SHOULD still accept tool call updates)."),
      );
    }
    return "the late update was shown";
  },
};
