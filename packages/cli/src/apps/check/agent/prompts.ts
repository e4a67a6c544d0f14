/**
 * How `acp check agent` asks an agent to do something: the reference agent's slash commands by default, or another
 * agent's wording from `--prompts FILE` (a JSON object: scenario id -> template, `null` to leave a scenario not
 * exercised). Templates take `{count}`, `{ms}`, `{path}` (relative to the session's cwd), `{text}`, `{command}` and
 * `{word}`; any agent that implements the same commands is fully exercised.
 */
import { readFileSync } from "node:fs";

/** Default wording per scenario id. */
export const DEFAULT_PROMPTS: Readonly<Record<string, string>> = {
  "prompt.turn": "Hello! Please answer in one short sentence.",
  "prompt.stream": "/stream {count}",
  "session.load": "Please remember this word: {word}",
  "session.resume": "Please remember this word: {word}",
  "session.list": "Please remember this word: {word}",
  "session.close": "/slow {ms}",
  "cancel.prompt": "/slow {ms}",
  "cancel.request": "/slow {ms}",
  "cancel.pending-request": "/write {path} {text}",
  "permission.request": "/write {path} {text}",
  "fs.read": "/read {path}",
  "fs.write": "/write {path} {text}",
  "terminal.lifecycle": "/run {command}",
};

/** The prompts a run uses. */
export class PromptBook {
  constructor(private readonly prompts: Readonly<Record<string, string | null>> = DEFAULT_PROMPTS) {}

  /** The prompt of a scenario with its placeholders filled, or undefined when the user left it out (`null`). */
  text(scenario: string, values: Record<string, string | number> = {}): string | undefined {
    const template = scenario in this.prompts ? this.prompts[scenario] : DEFAULT_PROMPTS[scenario];
    if (template === null || template === undefined) return undefined;
    return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
  }

  /** True when the wording is the reference agent's (the default). */
  isDefault(scenario: string): boolean {
    return !(scenario in this.prompts) || this.prompts[scenario] === DEFAULT_PROMPTS[scenario];
  }
}

/** Reads `--prompts FILE`. Throws an Error naming the problem (unknown ids, non-string values). */
export function readPromptBook(path: string, scenarioIds: readonly string[]): PromptBook {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`--prompts ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new Error(`--prompts ${path}: expected a JSON object mapping scenario ids to prompts`);
  const prompts: Record<string, string | null> = { ...DEFAULT_PROMPTS };
  for (const [id, template] of Object.entries(value)) {
    if (!scenarioIds.includes(id))
      throw new Error(
        `--prompts ${path}: unknown scenario id "${id}" (prompts are used by: ` +
          `${Object.keys(DEFAULT_PROMPTS).join(", ")})`,
      );
    if (template !== null && typeof template !== "string")
      throw new Error(`--prompts ${path}: the prompt of "${id}" must be a string or null`);
    prompts[id] = template;
  }
  return new PromptBook(prompts);
}
