/**
 * The reference agent's session config option: `model`, which picks between the scripted (deterministic, no
 * model) behaviour and the configured model endpoint, when there is one. Returned in session responses as
 * `configOptions` and by `session/set_config_option`.
 * @see https://agentclientprotocol.com/protocol/session-config-options
 */
import { RequestError } from "../../jsonrpc/index.js";
import type { SessionConfigOption, SetSessionConfigOptionRequest } from "../../protocol/index.js";
import type { ModelConfig } from "./model/config.js";

/** The config value that means "no model: scripted replies". */
export const SCRIPTED = "scripted";

/** The default value of `model`: the configured model if any, else scripted. */
export function defaultModelChoice(model: ModelConfig | undefined): string {
  return model?.model ?? SCRIPTED;
}

/** The session's config options, with `current` as the value of `model`. */
export function configOptions(model: ModelConfig | undefined, current: string): SessionConfigOption[] {
  const options = [{ value: SCRIPTED, name: "Scripted (no model)", description: "Deterministic replies and slash commands only." }];
  if (model !== undefined) options.push({ value: model.model, name: model.model, description: `The model at ${model.url}.` });
  return [
    {
      id: "model",
      name: "Model",
      description: "Which model answers plain-text prompts.",
      category: "model",
      type: "select",
      currentValue: current,
      options,
    },
  ];
}

/** Checks a `session/set_config_option` request and returns the new value of `model`; -32602 when invalid. */
export function checkConfigChange(model: ModelConfig | undefined, params: SetSessionConfigOptionRequest): string {
  if (params.configId !== "model") throw RequestError.invalidParams({ configId: params.configId }, `unknown config option "${params.configId}"`);
  const value = params.value;
  const allowed = [SCRIPTED, ...(model ? [model.model] : [])];
  if (typeof value !== "string" || !allowed.includes(value)) {
    throw RequestError.invalidParams({ value }, `model must be one of: ${allowed.join(", ")}`);
  }
  return value;
}
