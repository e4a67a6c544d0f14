/** The client's side of initialization and session setup, and one plain turn. */
import { SPEC } from "@acpkit/sdk/wire";
import { CheckFailed } from "../../results.js";
import { describeExit } from "../client-run.js";
import type { ClientScenario } from "../scenario.js";

function advertised(caps: Record<string, unknown>): string {
  const out: string[] = [];
  const fs = (caps.fs ?? {}) as Record<string, unknown>;
  if (fs.readTextFile) out.push("fs.readTextFile");
  if (fs.writeTextFile) out.push("fs.writeTextFile");
  if (caps.terminal) out.push("terminal");
  if (caps.elicitation) out.push("elicitation");
  return out.join(", ") || "no optional capabilities";
}

export const initializeScenario: ClientScenario = {
  id: "initialize",
  title: "initialize with the latest protocol version, then session/new with an absolute cwd, then a turn",
  spec: `${SPEC}/initialization`,
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    const init = agent.initialize!;
    ctx.measure("agentStartMs", ctx.client.connectedAt! - ctx.client.startedAt);
    if (init.protocolVersion !== 1)
      throw new CheckFailed(
        `the client asked for protocol version ${JSON.stringify(init.protocolVersion)}. The initialize ` +
          `request MUST carry the latest protocol version the client supports (1).`,
      );
    if (init.clientInfo === undefined)
      ctx.warn("the client sent no clientInfo; clients SHOULD give their name and version in initialize");
    agent.say(turn.sessionId, `${ctx.marker("hello")}\n`);
    const exit = await ctx.finish(agent, turn);
    if (exit && exit.code !== 0)
      ctx.warn(`the client exited with ${describeExit(exit)} after a turn that ended end_turn`);
    if (!ctx.shows(ctx.markers.hello!))
      ctx.warn(
        "the client did not print the agent's message on stdout: the checks that look for the agent's " +
          "messages in its output will be not exercised",
      );
    const info = init.clientInfo as { name?: string; version?: string } | undefined;
    return `${info?.name ?? "client"} ${info?.version ?? ""}`.trim() + `: ${advertised(agent.clientCapabilities)}`;
  },
};
