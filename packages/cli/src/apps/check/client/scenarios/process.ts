/** The client stops the agent it started, even one that ignores the end of its input. */
import { SPEC } from "@acpkit/sdk/wire";
import { CheckFailed } from "../../results.js";
import type { ClientScenario } from "../scenario.js";

export const noLeftoverScenario: ClientScenario = {
  id: "process.no-leftover",
  title: "no agent process left behind, even one that ignores the end of its stdin",
  spec: `${SPEC}/transports#stdio`,
  relay: { linger: true },
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    agent.say(turn.sessionId, "done\n");
    const exit = await ctx.finish(agent, turn);
    if (!exit)
      throw new CheckFailed(
        `the client did not exit within ${Math.round(ctx.target.turnTimeoutMs / 1000)} s after its turn, with ` +
          `an agent that ignores the end of its stdin: it waits for the agent instead of stopping it (close ` +
          `stdin, then signal it).`,
      );
    if (await ctx.client.relayOutlives(3000)) {
      throw new CheckFailed(
        `the client exited and left its agent process (pid ${ctx.client.relayPid}) running: an agent that ` +
          `ignores the end of its stdin must be stopped with a signal. A client MUST stop every agent process ` +
          `it started.`,
      );
    }
    return "the agent was stopped";
  },
};
