/**
 * One prompt turn of the reference agent that is not a slash command (the toolkit dispatches those): say what
 * non-text content arrived, then hand the text to the model (when one is configured and selected), or answer with
 * the scripted help.
 * @see https://agentclientprotocol.com/protocol/prompt-turn
 */
import type { PromptTurn, TurnResult } from "@acpkit/sdk/agent-toolkit";
import { modelChoice, remember, turnContext, type AgentSettings } from "./context.js";
import { SCRIPTED } from "./config-options.js";
import { runModelTurn } from "./model/model-turn.js";
import { describePrompt } from "./prompt-content.js";
import { estimateTokens, replyScripted } from "./reply.js";
import type { RefState } from "./state.js";

/** Builds the toolkit's `onPrompt` handler. */
export function promptHandler(settings: AgentSettings): (turn: PromptTurn<RefState>) => Promise<TurnResult> {
  return async (turn) => {
    const ctx = turnContext(turn, settings);
    const text = turn.text.trim();
    const attachments = describePrompt(turn.prompt);
    if (settings.model !== undefined && modelChoice(ctx) !== SCRIPTED) return runModelTurn(ctx, settings.model);
    if (attachments !== undefined) await turn.say(`${attachments}\n`);
    if (text !== "" || attachments === undefined) await replyScripted(ctx);
    ctx.state.tokensUsed += estimateTokens(text) + 120;
    remember(ctx, { ref: "tokens", used: ctx.state.tokensUsed });
    return "end_turn";
  };
}
