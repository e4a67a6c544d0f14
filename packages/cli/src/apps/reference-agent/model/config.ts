/**
 * Where the reference agent's optional model lives: an OpenAI-compatible chat-completions endpoint (llama.cpp's
 * server, Ollama, vLLM, or a hosted one). Flags win over the environment (`ACP_MODEL_URL`, `ACP_MODEL`,
 * `ACP_MODEL_KEY`). Without a URL and a model name the agent runs scripted, with no model.
 */

/** A configured model endpoint. `url` is the API base (e.g. `http://127.0.0.1:8080/v1`). */
export interface ModelConfig {
  url: string;
  model: string;
  key?: string;
}

/** The chat-completions URL of a base URL (a base that already ends in `/chat/completions` is kept). */
export function completionsUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, "");
  return trimmed.endsWith("/chat/completions") ? trimmed : `${trimmed}/chat/completions`;
}

/**
 * The model config from flags (`url`, `model`, `key`, each possibly undefined) and the environment, or undefined
 * when no URL or no model name is known. Throws when only one of the two is given: that is a mistake to report.
 */
export function resolveModelConfig(
  flags: { url?: string | undefined; model?: string | undefined; key?: string | undefined },
  env: Record<string, string | undefined> = process.env,
): ModelConfig | undefined {
  const url = flags.url ?? env.ACP_MODEL_URL;
  const model = flags.model ?? env.ACP_MODEL;
  const key = flags.key ?? env.ACP_MODEL_KEY;
  if (!url && !model) return undefined;
  if (!url) throw new Error("a model name was given but no endpoint: pass --model-url URL or set ACP_MODEL_URL");
  if (!model) throw new Error("a model endpoint was given but no model name: pass --model NAME or set ACP_MODEL");
  return key ? { url, model, key } : { url, model };
}
