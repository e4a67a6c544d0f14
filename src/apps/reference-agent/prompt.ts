/**
 * One prompt turn of the reference agent: say what non-text content arrived, then run a slash command, or hand
 * plain text to the model (when one is configured and selected), or answer with the scripted help.
 * @see https://agentclientprotocol.com/protocol/prompt-turn
 */
import type { PromptTurn, TurnResult } from "../../agent/toolkit/index.js";
import type { ClientCapabilities } from "../../protocol/index.js";
import { runSlashCommand } from "./commands/index.js";
import { parseCommand } from "./commands/registry.js";
import { remember, type AgentSettings, type TurnContext } from "./context.js";
import { SCRIPTED } from "./config-options.js";
import type { McpHub } from "./mcp.js";
import { runModelTurn } from "./model/model-turn.js";
import { describePrompt } from "./prompt-content.js";
import { estimateTokens, replyScripted } from "./reply.js";
import type { RefState } from "./state.js";

/** What the prompt handler needs from the agent around it. */
export interface PromptEnvironment {
  settings: AgentSettings;
  clientCapabilities(): ClientCapabilities;
  mcp(sessionId: string): McpHub;
}

/** Builds the toolkit's `onPrompt` handler. */
export function promptHandler(env: PromptEnvironment): (turn: PromptTurn<RefState>) => Promise<TurnResult> {
  return async (turn) => {
    const ctx: TurnContext = {
      turn,
      state: turn.session.state,
      settings: env.settings,
      mcp: env.mcp(turn.sessionId),
      clientCapabilities: env.clientCapabilities(),
    };
    const text = turn.text.trim();
    const command = parseCommand(text);
    if (command !== undefined) return runSlashCommand(ctx, command.name, command.args);
    const attachments = describePrompt(turn.prompt);
    if (env.settings.model !== undefined && ctx.state.model !== SCRIPTED) return runModelTurn(ctx, env.settings.model);
    if (attachments !== undefined) await turn.say(`${attachments}\n`);
    if (text !== "" || attachments === undefined) await replyScripted(ctx);
    ctx.state.tokensUsed += estimateTokens(text) + 120;
    remember(ctx, { ref: "tokens", used: ctx.state.tokensUsed });
    return "end_turn";
  };
}
