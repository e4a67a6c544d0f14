/**
 * The mode gate every change goes through (write, edit, run): `architect` refuses, `code` allows, `ask` asks the
 * user (`session/request_permission`, with "always" answers remembered per tool kind for the session).
 * @see https://agentclientprotocol.com/protocol/tool-calls#requesting-permission
 */
import type { ToolCallHandle } from "@acpkit/sdk/agent-toolkit";
import { modeOf, type TurnContext } from "../context.js";
import { changePolicy } from "../modes.js";

/** Undefined when the change may go ahead; else why not (the tool call was already marked failed). */
export async function gateChange(ctx: TurnContext, call: ToolCallHandle): Promise<string | undefined> {
  const mode = modeOf(ctx);
  const policy = changePolicy(mode);
  if (policy === "allow") return undefined;
  if (policy === "refuse") {
    const why = `refused: the session is in ${mode} mode, which makes no changes (switch to ask or code mode)`;
    await call.fail(why);
    return why;
  }
  const decision = await ctx.turn.requestPermission(call);
  if (decision.allowed) return undefined;
  const why = "the user rejected this change";
  await call.fail(why);
  return why;
}
