/** An agent that answers `end_turn` to a cancel (a common agent bug) must not hang the client. */
import { SPEC } from "@acpkit/sdk/wire";
import { CheckFailed } from "../../results.js";
import { describeExit } from "../client-run.js";
import type { ClientScenario } from "../scenario.js";

export const cancelEndTurnScenario: ClientScenario = {
  id: "cancel.end-turn",
  title: "an end_turn answered to a cancel does not hang the client",
  spec: `${SPEC}/prompt-turn#cancellation`,
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    agent.say(turn.sessionId, "working...\n");
    await ctx.cancelFromClient(agent, turn);
    agent.say(turn.sessionId, "ignoring the cancel\n");
    const exit = await ctx.finish(agent, turn, "end_turn");
    if (!exit)
      throw new CheckFailed(
        `the client did not finish within ${Math.round(ctx.target.turnTimeoutMs / 1000)} s after the agent ` +
          `answered end_turn to its cancel. A client must not wait forever for a "cancelled" that an agent may ` +
          `never send.`,
      );
    return `the client finished (${describeExit(exit)})`;
  },
};
