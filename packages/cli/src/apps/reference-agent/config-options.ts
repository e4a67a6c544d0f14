/**
 * The reference agent's session config option: `model`, which picks between the scripted (deterministic, no
 * model) behaviour and the configured model endpoint, when there is one. Declared to the toolkit
 * (`toolkitAgent({ configOptions })`), which answers `session/set_config_option` (refusing unknown values),
 * returns it in session responses and persists the choice.
 * @see https://agentclientprotocol.com/protocol/session-config-options
 */
import type { SessionConfigOption } from "@acpkit/sdk";
import type { ModelConfig } from "./model/config.js";

/** The id of the option. */
export const MODEL_OPTION = "model";

/** The config value that means "no model: scripted replies". */
export const SCRIPTED = "scripted";

/** The `model` option; its default is the configured model if any, else scripted. */
export function modelOption(model: ModelConfig | undefined): SessionConfigOption {
  const options = [
    { value: SCRIPTED, name: "Scripted (no model)", description: "Deterministic replies and slash commands only." },
  ];
  if (model !== undefined)
    options.push({ value: model.model, name: model.model, description: `The model at ${model.url}.` });
  return {
    id: MODEL_OPTION,
    name: "Model",
    description: "Which model answers plain-text prompts.",
    category: "model",
    type: "select",
    currentValue: model?.model ?? SCRIPTED,
    options,
  };
}
