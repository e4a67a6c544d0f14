/**
 * A prompt turn answered by the configured model: the user's message joins the session's conversation, then up to
 * `MAX_ROUNDS` completions stream (text as `agent_message_chunk`, reasoning as `agent_thought_chunk`, token counts
 * as `usage_update`); each round's tool calls run through the agent's tools and their results go back to the
 * model. The conversation is recorded in the session's history, so a loaded session continues where it stopped.
 * Cancellation aborts the HTTP request at once (the turn's signal is the fetch's signal).
 */
import { isAbortError, type TurnResult } from "@acpkit/sdk/agent-toolkit";
import { RequestError } from "@acpkit/sdk";
import { CONTEXT_SIZE } from "../commands/session.js";
import { modeOf, remember, type TurnContext } from "../context.js";
import { blockForModel } from "../prompt-content.js";
import type { ChatMessage } from "./chat-types.js";
import { streamChat } from "./chat-stream.js";
import type { ModelConfig } from "./config.js";
import { executeTool, toolDefinitions } from "./tool-defs.js";

/** Most completions (tool-call rounds) in one turn. */
export const MAX_ROUNDS = 8;

function systemPrompt(ctx: TurnContext): string {
  return [
    `You are a small coding agent working in ${ctx.turn.session.cwd}, talking to the user through an editor.`,
    "Use the tools to read, search, edit and run things; paths may be relative to the working directory.",
    `The session is in ` +
      `${modeOf(ctx)} mode${modeOf(ctx) === "architect" ? ": plan and explain, do not change files" : ""}.`,
    "Be brief.",
  ].join(" ");
}

function push(ctx: TurnContext, message: ChatMessage): void {
  ctx.state.messages.push(message);
  remember(ctx, { ref: "chat", message });
}

/** Runs the turn; a failure of the endpoint (not a cancel) answers the prompt with a -32603 that says why. */
export async function runModelTurn(ctx: TurnContext, config: ModelConfig): Promise<TurnResult> {
  try {
    return await converse(ctx, config);
  } catch (error) {
    if (isAbortError(error) || ctx.turn.signal.aborted) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    ctx.settings.logger.warn("the model turn failed", { sessionId: ctx.turn.sessionId, detail });
    throw RequestError.internalError({ model: config.model }, `the model turn failed: ${detail}`);
  }
}

async function converse(ctx: TurnContext, config: ModelConfig): Promise<TurnResult> {
  const { turn } = ctx;
  push(ctx, { role: "user", content: turn.prompt.map(blockForModel).join("\n") });
  const tools = toolDefinitions(ctx);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const outcome = await streamChat(
      config,
      { messages: [{ role: "system", content: systemPrompt(ctx) }, ...ctx.state.messages], tools },
      turn.signal,
      async (event) => {
        if (event.type === "text") await turn.say(event.text);
        else if (event.type === "reasoning") await turn.think(event.text);
        else {
          ctx.state.tokensUsed = event.totalTokens;
          remember(ctx, { ref: "tokens", used: event.totalTokens });
          await turn.reportUsage({ used: event.totalTokens, size: CONTEXT_SIZE });
        }
      },
    );
    push(
      ctx,
      outcome.toolCalls.length > 0
        ? { role: "assistant", content: outcome.text || null, tool_calls: outcome.toolCalls }
        : { role: "assistant", content: outcome.text },
    );
    if (outcome.toolCalls.length === 0) return outcome.finishReason === "length" ? "max_tokens" : "end_turn";
    for (const call of outcome.toolCalls) {
      const result = await executeTool(ctx, call.function.name, call.function.arguments);
      push(ctx, {
        role: "tool",
        tool_call_id: call.id,
        content: result.ok ? result.output : `error: ${result.output}`,
      });
    }
  }
  return "max_turn_requests";
}
