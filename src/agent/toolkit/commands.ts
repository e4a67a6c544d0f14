/**
 * Slash commands: declared once (`{ name, description, input?, run }`), advertised to the client with
 * `available_commands_update` once a session is live (after the new/load/resume response, so the client knows the
 * session id), and dispatched when a prompt starts with `/name`. An unknown `/name` gets a reply listing the
 * commands instead of reaching the model.
 * The spec: the agent MAY send `available_commands_update` after creating a session and at any time after; commands
 * arrive as ordinary prompt text (`/web agent client protocol`), possibly with other content blocks.
 * @see https://agentclientprotocol.com/protocol/slash-commands
 */
import type { AvailableCommand } from "../../protocol/index.js";
import type { PromptTurn, TurnResult } from "./prompt-turn.js";
import type { ToolkitSession } from "./session.js";

/** One slash command. `run` gets the turn and the text typed after the name (trimmed; "" if none). */
export interface SlashCommand<S = unknown> {
  /** Without the slash: `test`, `plan`, `web`. No whitespace or `/`. */
  name: string;
  description: string;
  /** Present when the command takes text after its name: the hint the client shows until it is typed. */
  input?: { hint: string };
  run(turn: PromptTurn<S>, args: string): Promise<TurnResult>;
}

/** A prompt read as a command: the name (no slash) and the rest of the text. */
export interface ParsedCommand {
  name: string;
  args: string;
}

const COMMAND = /^\/([A-Za-z0-9_][A-Za-z0-9_.:-]*)(?:\s+([\s\S]*))?$/;

/** Reads `/name args` from the start of a prompt's text; undefined if it is not a command (`/usr/bin` is not). */
export function parseCommand(text: string): ParsedCommand | undefined {
  const match = COMMAND.exec(text.trim());
  if (match === null) return undefined;
  return { name: match[1]!, args: (match[2] ?? "").trim() };
}

/** Checks declared commands (author errors): valid, unique names and a description. */
export function validateCommands<S>(commands: readonly SlashCommand<S>[]): void {
  const seen = new Set<string>();
  for (const command of commands) {
    if (parseCommand(`/${command.name}`)?.name !== command.name)
      throw new Error(`invalid slash command name "${command.name}": no slash, no spaces`);
    if (seen.has(command.name)) throw new Error(`slash command "${command.name}" is declared twice`);
    if (!command.description) throw new Error(`slash command "${command.name}" needs a description`);
    seen.add(command.name);
  }
}

/** The wire form of a command. */
export function availableCommand<S>(command: SlashCommand<S>): AvailableCommand {
  const out: AvailableCommand = { name: command.name, description: command.description };
  if (command.input !== undefined) out.input = { hint: command.input.hint };
  return out;
}

/** The slash commands of one session; changing them sends `available_commands_update`. */
export class SessionCommands<S = unknown> {
  readonly #session: ToolkitSession<S>;
  #commands: SlashCommand<S>[];

  constructor(session: ToolkitSession<S>, commands: readonly SlashCommand<S>[]) {
    validateCommands(commands);
    this.#session = session;
    this.#commands = [...commands];
  }

  /** The current commands. */
  get list(): SlashCommand<S>[] {
    return [...this.#commands];
  }

  find(name: string): SlashCommand<S> | undefined {
    return this.#commands.find((command) => command.name === name);
  }

  /** The `availableCommands` payload. */
  available(): AvailableCommand[] {
    return this.#commands.map((command) => availableCommand(command));
  }

  /** Sends the current list (`available_commands_update`). Not recorded for replay: a loaded session gets it afresh. */
  announce(): Promise<void> {
    return this.#session.client.notify("session/update", {
      sessionId: this.#session.sessionId,
      update: { sessionUpdate: "available_commands_update", availableCommands: this.available() },
    });
  }

  /** Replaces the commands and tells the client. */
  set(commands: readonly SlashCommand<S>[]): Promise<void> {
    validateCommands(commands);
    this.#commands = [...commands];
    return this.announce();
  }

  /** Adds (or replaces, by name) a command and tells the client. */
  add(command: SlashCommand<S>): Promise<void> {
    return this.set([...this.#commands.filter((existing) => existing.name !== command.name), command]);
  }

  /** Removes a command by name and tells the client. */
  remove(name: string): Promise<void> {
    return this.set(this.#commands.filter((existing) => existing.name !== name));
  }

  /**
   * Runs the command a turn's prompt names: its result, or a reply listing the commands for an unknown `/name`.
   * Undefined when the prompt is not a command (the prompt handler runs instead).
   */
  dispatch(turn: PromptTurn<S>): Promise<TurnResult> | undefined {
    const parsed = parseCommand(turn.text);
    if (parsed === undefined) return undefined;
    const command = this.find(parsed.name);
    if (command !== undefined) return command.run(turn, parsed.args);
    return turn.say(this.#unknown(parsed.name)).then(() => "end_turn" as const);
  }

  #unknown(name: string): string {
    if (this.#commands.length === 0) return `Unknown command /${name}: this agent has no slash commands.`;
    const lines = this.#commands.map(
      (command) => `- /${command.name}${command.input ? ` <${command.input.hint}>` : ""}: ${command.description}`,
    );
    return `Unknown command /${name}. Available commands:\n${lines.join("\n")}`;
  }
}
