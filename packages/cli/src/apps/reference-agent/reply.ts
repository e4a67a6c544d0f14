/**
 * The scripted answer to plain text (no model configured, or the `model` option set to scripted): what the agent
 * can do and how to give it a model. Streamed sentence by sentence.
 */
import type { TurnContext } from "./context.js";

/** A rough token count (4 characters a token), for the scripted agent's usage reports. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function scriptedAnswer(ctx: TurnContext): string {
  const configured = ctx.settings.model;
  const intro = "I am the acp reference agent. I have no model to answer with, so here is what I can do.";
  const commands =
    " Slash commands work without a model: /read PATH, /write PATH TEXT, /edit PATH, /run CMD, /grep PATTERN, " +
    "/plan, /think, /stream N, /slow MS, /fail, /elicit, /usage, /title TEXT, /mcp, /mcp-call SERVER TOOL " +
    "JSON; /help lists them all.";
  const howTo =
    configured === undefined
      ? " To make me a small coding agent, point me at an OpenAI-compatible chat-completions endpoint " +
        "(llama.cpp, Ollama, vLLM or a hosted one): acp agent --model-url http://127.0.0.1:11434/v1 --model " +
        "qwen2.5-coder [--model-key KEY], or set ACP_MODEL_URL, ACP_MODEL and ACP_MODEL_KEY."
      : ` A model is configured (${configured.model}), but this session's "model" option is set to scripted: ` +
        `set it to ${configured.model} to talk to it.`;
  return `${intro}${commands}${howTo}`;
}

/** Streams the scripted answer. */
export async function replyScripted(ctx: TurnContext): Promise<void> {
  for (const sentence of scriptedAnswer(ctx).split(/(?<=[.:])\s+(?=[A-Z/])/)) {
    await ctx.turn.say(`${sentence} `);
  }
}
