/** What a tool reports back to its caller (a slash command or the model's tool loop). */
export interface ToolResult {
  ok: boolean;
  /** Text for the model (and for the user's message). */
  output: string;
}

/** The text of an error. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `text` cut to `max` characters, marking the cut. */
export function clip(text: string, max = 4000): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}
