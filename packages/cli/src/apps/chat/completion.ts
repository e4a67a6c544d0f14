/**
 * Tab completion for the chat prompt: agent slash commands (from `available_commands_update`) after `/` at the
 * start of the line, chat-local commands after `:`, and file paths after `@` anywhere. Pure: the directory
 * listing is injected.
 */
import { lastToken } from "./input.js";

/** A directory entry, as the completer needs it. */
export interface DirEntry {
  readonly name: string;
  readonly directory: boolean;
}

/** What the completer may offer. */
export interface CompletionContext {
  /** The agent's slash command names (without `/`). */
  readonly slashCommands: readonly string[];
  /** The chat-local command names (without `:`). */
  readonly localCommands: readonly string[];
  /** Lists a directory, relative to the session's cwd (`""` is the cwd itself); empty on error. */
  readonly listDir: (dir: string) => readonly DirEntry[];
}

/**
 * Completes `line` (the text left of the cursor), readline style: returns the candidates and the substring they
 * replace (a command candidate ends with a space, so a single match is ready for its input). No candidates:
 * `[[], token]`.
 */
export function complete(line: string, context: CompletionContext): [string[], string] {
  const { token, start } = lastToken(line);
  const atStart = line.slice(0, start).trim() === "";
  if (atStart && token.startsWith("/"))
    return [
      matching(
        context.slashCommands.map((name) => `/${name} `),
        token,
      ),
      token,
    ];
  if (atStart && token.startsWith(":"))
    return [
      matching(
        context.localCommands.map((name) => `:${name} `),
        token,
      ),
      token,
    ];
  if (token.startsWith("@")) return [completePath(token.slice(1), context).map((path) => `@${path}`), token];
  return [[], token];
}

function matching(candidates: readonly string[], prefix: string): string[] {
  return candidates.filter((candidate) => candidate.startsWith(prefix)).sort();
}

/** Paths completing `partial` (directories end with `/`); hidden entries only when `partial`'s name starts with `.`. */
export function completePath(partial: string, context: Pick<CompletionContext, "listDir">): string[] {
  const slash = partial.lastIndexOf("/");
  const dir = slash === -1 ? "" : partial.slice(0, slash + 1);
  const name = slash === -1 ? partial : partial.slice(slash + 1);
  return context
    .listDir(dir)
    .filter((entry) => entry.name.startsWith(name) && (name.startsWith(".") || !entry.name.startsWith(".")))
    .map((entry) => `${dir}${entry.name}${entry.directory ? "/" : ""}`)
    .sort();
}
