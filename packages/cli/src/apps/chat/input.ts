/**
 * Parsing what the user typed: chat-local commands (`:help`, `:mode plan`), agent slash commands (`/review now`,
 * sent to the agent as prompt text), and `@path` mentions that become attachments. Pure.
 */

/** What one input line means. */
export type ParsedInput =
  | { readonly kind: "empty" }
  /** A chat-local command: `:name arg1 arg2`. */
  | { readonly kind: "local"; readonly name: string; readonly args: readonly string[]; readonly rest: string }
  /** A prompt for the agent; `command` is set for `/name input`; `mentions` are the `@path`s in order. */
  | {
      readonly kind: "prompt";
      readonly text: string;
      readonly command?: { readonly name: string; readonly input: string };
      readonly mentions: readonly string[];
    };

/**
 * Parses one line. `:name args` is a local command (`::text` sends `:text` to the agent); `/name input` is an agent
 * slash command; anything else is a prompt. `@path` (at the start or after a space; `@"a b"` for spaces) is a
 * mention in prompts and slash command input alike.
 */
export function parseInput(line: string): ParsedInput {
  const text = line.trim();
  if (text === "") return { kind: "empty" };
  if (text.startsWith(":") && !text.startsWith("::")) {
    const match = /^:(\S*)\s*(.*)$/s.exec(text)!;
    const rest = match[2]!.trim();
    return { kind: "local", name: match[1]!.toLowerCase(), args: rest === "" ? [] : rest.split(/\s+/), rest };
  }
  const prompt = text.startsWith("::") ? text.slice(1) : text;
  const mentions = findMentions(prompt);
  const command = /^\/(\S+)(?:\s+(.*))?$/s.exec(prompt);
  if (command)
    return { kind: "prompt", text: prompt, command: { name: command[1]!, input: (command[2] ?? "").trim() }, mentions };
  return { kind: "prompt", text: prompt, mentions };
}

/** The `@path` mentions of a text, in order, without duplicates. Trailing punctuation is not part of a path. */
export function findMentions(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|\s)@(?:"([^"]+)"|(\S+))/g)) {
    const path = match[1] ?? match[2]!.replace(/[.,;:!?)\]}]+$/, "");
    if (path !== "" && !found.includes(path)) found.push(path);
  }
  return found;
}

/** The last whitespace-separated token of `line` (what completion works on) and where it starts. */
export function lastToken(line: string): { token: string; start: number } {
  const match = /(\S*)$/.exec(line)!;
  return { token: match[1]!, start: match.index };
}
