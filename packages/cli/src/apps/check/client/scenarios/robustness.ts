/** A misbehaving agent: a 30 MiB frame, log lines on stdout, a crash in the middle of a frame, a slow initialize. */
import { SPEC } from "@acpkit/sdk/wire";
import { CheckFailed } from "../../results.js";
import { describeExit } from "../client-run.js";
import type { ClientScenario } from "../scenario.js";

export const largeFrameScenario: ClientScenario = {
  id: "robust.large-frame",
  title: "a 30 MiB frame does not break the client; what follows still arrives",
  spec: `${SPEC}/transports#stdio`,
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    agent.say(turn.sessionId, `${ctx.marker("before")}\n`);
    agent.say(turn.sessionId, `${"x".repeat(30 * 1024 * 1024)}\n`);
    agent.say(turn.sessionId, `${ctx.marker("after")}\n`);
    agent.end(turn);
    ctx.client.closeStdin();
    // Showing 30 MiB of text takes a while: the client gets four times the turn timeout.
    const exit = await ctx.client.exitWithin(4 * ctx.target.turnTimeoutMs);
    if (!exit)
      throw new CheckFailed(
        `the client did not finish its turn within ${Math.round((4 * ctx.target.turnTimeoutMs) / 1000)} s ` +
          `after a 30 MiB message chunk`,
      );
    if (exit.code !== 0)
      throw new CheckFailed(
        `the client ended with ${describeExit(exit)} after a turn with a 30 MiB message chunk; ` +
          `${ctx.client.describeClient()}`,
      );
    if (ctx.shows(ctx.markers.before!) && !ctx.shows(ctx.markers.after!))
      throw new CheckFailed(
        "the client lost the message that came after a 30 MiB frame. A client may refuse an oversized frame, " +
          "but MUST carry on with the next one.",
      );
    return "the turn finished; later messages arrived";
  },
};

export const nonJsonScenario: ClientScenario = {
  id: "robust.non-json",
  title: "non-JSON lines on the agent's stdout are skipped",
  spec: `${SPEC}/transports#stdio`,
  agent: { beforeInitializeAnswer: (peer) => peer.sendRaw("acp-check: an agent logging to stdout by mistake\n") },
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    agent.peer.sendRaw("Traceback (most recent call last): not JSON either\n");
    agent.say(turn.sessionId, `${ctx.marker("after")}\n`);
    const exit = await ctx.finish(agent, turn);
    if (!exit)
      throw new CheckFailed("the client did not finish its turn after the agent printed non-JSON lines on stdout");
    if (exit.code !== 0)
      throw new CheckFailed(
        `the client ended with ${describeExit(exit)} after the agent printed non-JSON lines; it should skip ` +
          `them and carry on. ${ctx.client.describeClient()}`,
      );
    return "skipped; the turn finished";
  },
};

export const crashScenario: ClientScenario = {
  id: "robust.crash-mid-frame",
  title: "an agent that dies in the middle of a frame: the client ends, and says so",
  spec: `${SPEC}/transports#stdio`,
  relay: { exitCode: 70 },
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    agent.say(turn.sessionId, "about to crash\n");
    agent.peer.sendRaw(
      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${turn.sessionId}","update":{"sessionUp`,
    );
    turn.answered = true;
    ctx.client.closeAgent();
    ctx.client.closeStdin();
    const exit = await ctx.client.exitWithin(ctx.target.turnTimeoutMs);
    if (!exit)
      throw new CheckFailed(
        `the client was still running ${Math.round(ctx.target.turnTimeoutMs / 1000)} s after its agent died ` +
          `in the middle of a frame (exit code 70). A client must notice its agent's end and stop waiting.`,
      );
    if (exit.code === 0)
      ctx.warn(
        "the client exited 0 although its agent crashed in the middle of the turn; it should report the failure",
      );
    return `the client ended (${describeExit(exit)})`;
  },
};

export const slowInitializeScenario: ClientScenario = {
  id: "robust.slow-initialize",
  title: "an initialize answered after 3 s: the client waits",
  spec: `${SPEC}/initialization`,
  agent: { initializeDelayMs: 3000 },
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    agent.say(turn.sessionId, "slow but fine\n");
    const exit = await ctx.finish(agent, turn);
    if (exit && exit.code !== 0)
      ctx.warn(`the client exited with ${describeExit(exit)} after a turn that ended end_turn`);
    return "the client waited and ran its turn";
  },
};
