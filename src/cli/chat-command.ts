/**
 * `acp chat [options] [-- PROGRAM ARGS...]`: argument parsing for the terminal chat client; the chat itself lives
 * in src/apps/chat. Without an agent command it chats with the reference agent (`acp agent`), or with the demo
 * agent while the reference agent is not built.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runChat, type ChatOptions } from "../apps/chat/main.js";
import { splitCommandLine } from "../node/command-line.js";

export const chatUsage = `acp chat: a terminal UI for any ACP agent

Usage:
  acp chat [options]                       chat with the reference agent
  acp chat [options] -- PROGRAM [ARGS...]  chat with the agent PROGRAM ARGS
  acp chat [options] --agent "COMMAND"     the same, as one command line

Options:
  --cwd DIR          the session's working directory (default: the current one)
  --resume ID        load or resume session ID instead of starting a new one
  --verbose          show the agent's stderr
  --no-color         no colours (also: NO_COLOR=1)
  --startup-timeout MS  how long the agent has to answer initialize (default 30000)
  -h, --help         this help

In the chat: :help lists the chat commands; /command runs an agent command; @path attaches a file;
Ctrl-C cancels the running turn, twice quits; Ctrl-D quits.
`;

/** The agent `acp chat` starts by default: `acp agent` once it exists, else the demo agent. */
export function defaultAgentArgv(): string[] {
  const referenceAgent = new URL("../apps/reference-agent/", import.meta.url);
  if (existsSync(fileURLToPath(referenceAgent))) return [process.execPath, fileURLToPath(new URL("./main.js", import.meta.url)), "agent"];
  return [process.execPath, fileURLToPath(new URL("../apps/demo/demo-agent.js", import.meta.url))];
}

/** Parses `acp chat` arguments; throws an Error with a readable message on bad ones. `"help"` for --help. */
export function parseChatArgs(args: readonly string[]): ChatOptions | "help" {
  const options: { -readonly [K in keyof ChatOptions]: ChatOptions[K] } = { agentArgv: [] };
  let agent: string[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = () => {
      const next = args[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === "--") {
      agent = args.slice(i + 1);
      break;
    }
    switch (arg) {
      case "-h":
      case "--help":
        return "help";
      case "--cwd":
        options.cwd = value();
        break;
      case "--agent":
        agent = splitCommandLine(value());
        break;
      case "--resume":
        options.resume = value();
        break;
      case "--verbose":
        options.verbose = true;
        break;
      case "--no-color":
        options.noColor = true;
        break;
      case "--startup-timeout": {
        const ms = Number(value());
        if (!Number.isFinite(ms) || ms <= 0) throw new Error("--startup-timeout takes a positive number of milliseconds");
        options.startupTimeoutMs = ms;
        break;
      }
      default:
        throw new Error(`unknown option ${arg} (acp chat --help lists them)`);
    }
  }
  if (agent !== undefined && agent.length === 0) throw new Error("no agent program after --");
  options.agentArgv = agent ?? defaultAgentArgv();
  return options;
}

/** Runs `acp chat` with its arguments; resolves with the exit code. */
export async function chatCommand(args: readonly string[]): Promise<number> {
  let options: ChatOptions | "help";
  try {
    options = parseChatArgs(args);
  } catch (error) {
    process.stderr.write(`acp chat: ${(error as Error).message}\n`);
    return 2;
  }
  if (options === "help") {
    process.stdout.write(chatUsage);
    return 0;
  }
  return runChat(options);
}
