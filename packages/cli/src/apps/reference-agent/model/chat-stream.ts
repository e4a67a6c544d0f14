/**
 * One streamed chat-completions request to an OpenAI-compatible endpoint (`fetch`, `stream: true`): content
 * deltas, reasoning deltas (`reasoning_content` as llama.cpp, vLLM and DeepSeek send it, or `reasoning` as Ollama
 * and OpenRouter do) and usage are reported as they arrive; tool-call deltas are assembled by index. Aborting
 * `signal` aborts the HTTP request at once.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
import type { ChatChunk, ChatMessage, ChatTool, ChatToolCall } from "./chat-types.js";
import { completionsUrl, type ModelConfig } from "./config.js";
import { sseData } from "./sse.js";

export type ChatEvent =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "usage"; promptTokens: number; completionTokens: number; totalTokens: number };

export interface ChatOutcome {
  text: string;
  toolCalls: ChatToolCall[];
  finishReason: string | undefined;
}

/** Streams one completion; `onEvent` is awaited for each event, in order. Rejects on HTTP or API errors. */
export async function streamChat(
  config: ModelConfig,
  request: { messages: ChatMessage[]; tools: ChatTool[] },
  signal: AbortSignal,
  onEvent: (event: ChatEvent) => Promise<void>,
): Promise<ChatOutcome> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
  if (config.key) headers.authorization = `Bearer ${config.key}`;
  const body: Record<string, unknown> = {
    model: config.model,
    messages: request.messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) body.tools = request.tools;
  const response = await fetch(completionsUrl(config.url), {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok || response.body === null) {
    const detail = (await response.text().catch(() => "")).slice(0, 500);
    throw new Error(`the model endpoint answered HTTP ${response.status}${detail ? `: ${detail}` : ""}`);
  }
  let text = "";
  let finishReason: string | undefined;
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for await (const data of sseData(response.body)) {
    let chunk: ChatChunk;
    try {
      chunk = JSON.parse(data) as ChatChunk;
    } catch {
      throw new Error(`the model endpoint sent an event that is not JSON: ${data.slice(0, 200)}`);
    }
    if (chunk.error)
      throw new Error(`the model endpoint reported an error: ${chunk.error.message ?? JSON.stringify(chunk.error)}`);
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta ?? {};
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (reasoning) await onEvent({ type: "reasoning", text: reasoning });
      if (delta.content) {
        text += delta.content;
        await onEvent({ type: "text", text: delta.content });
      }
      for (const part of delta.tool_calls ?? []) {
        const index = part.index ?? calls.length;
        const call = (calls[index] ??= { id: "", name: "", arguments: "" });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
    if (chunk.usage) {
      const promptTokens = chunk.usage.prompt_tokens ?? 0;
      const completionTokens = chunk.usage.completion_tokens ?? 0;
      await onEvent({
        type: "usage",
        promptTokens,
        completionTokens,
        totalTokens: chunk.usage.total_tokens ?? promptTokens + completionTokens,
      });
    }
  }
  const toolCalls = calls
    .filter((call) => call !== undefined && call.name !== "")
    .map((call, i): ChatToolCall => ({
      id: call.id || `call_${i}`,
      type: "function",
      function: { name: call.name, arguments: call.arguments || "{}" },
    }));
  return { text, toolCalls, finishReason };
}
