/**
 * `acp chat [options] [-- PROGRAM ARGS...]`: argument parsing for the terminal chat client; the chat itself lives
 * in src/apps/chat. Without an agent command it chats with the reference agent (`acp agent`), or with the demo
 * agent while the reference agent is not built.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runChat, type ChatOptions } from "../apps/chat/main.js";
import { splitCommandLine } from "@acpkit/sdk/node";
import {
  AGENT_SETUP_USAGE,
  loadMcpServers,
  noAgentSetupFlags,
  openTraceFlag,
  setAgentSetupFlag,
  type AgentSetupFlags,
} from "./shared/agent-setup-flags.js";
import { buildPolicy } from "./shared/permissions.js";
import {
  checkAgentValue,
  flagValue,
  noRemoteAgentFlags,
  REMOTE_AGENT_USAGE,
  remoteAgentSpec,
  setRemoteAgentFlag,
} from "./shared/remote-agent-flags.js";

export const chatUsage = `acp chat: a terminal UI for any ACP agent

Usage:
  acp chat [options]                       chat with the reference agent
  acp chat [options] -- PROGRAM [ARGS...]  chat with the agent PROGRAM ARGS
  acp chat [options] --agent "COMMAND"     the same, as one command line
  acp chat [options] --agent URL           chat with a remote agent: http(s)://HOST/acp or ws(s)://HOST/acp

Options:
  --cwd DIR                the session's working directory (default: the current one)
  --resume ID              load or resume session ID instead of starting a new one
  --attach ID URL          join live session ID on an acp serve at URL as a controller (shared sessions;
                           acp sessions URL lists them); --observe ID URL joins it read-only
  --permissions POLICY     ask (default: the chat asks you) | allow-all | deny-all | allow-reads | rules:FILE.json
                           it also governs the chat's own file reads, writes and terminals for the agent:
                           deny-all serves none, allow-reads only reads, ask asks before a write or a
                           command the agent did not ask permission for
${AGENT_SETUP_USAGE}
                           (without it, when the agent answers auth_required: the one method it offers)
${REMOTE_AGENT_USAGE}
  --verbose                show the agent's stderr
  --no-color               no colours (also: NO_COLOR=1)
  --startup-timeout MS     how long the agent has to answer initialize (default 30000)
  -h, --help               this help

In the chat: :help lists the chat commands; /command runs an agent command; @path attaches a file;
Ctrl-C cancels the running turn, twice quits; Ctrl-D quits.
`;

/** The agent `acp chat` starts by default: `acp agent` once it exists, else the demo agent. */
export function defaultAgentArgv(): string[] {
  const referenceAgent = new URL("../apps/reference-agent", import.meta.url);
  if (existsSync(fileURLToPath(referenceAgent)))
    return [process.execPath, fileURLToPath(new URL("./main.js", import.meta.url)), "agent"];
  return [process.execPath, fileURLToPath(new URL("../apps/demo/demo-agent.js", import.meta.url))];
}

/** `acp chat`'s arguments: the chat's options and the agent-setup flags it shares with `acp exec`. */
export type ChatArgs = Omit<ChatOptions, "setup"> & { setupFlags: AgentSetupFlags };

/** The options of `acp chat` (a value is never one of them). */
const CHAT_FLAGS = new Set([
  "-h",
  "--help",
  "--cwd",
  "--agent",
  "--token",
  "--token-file",
  "--header",
  "--profile",
  "--resume",
  "--verbose",
  "--no-color",
  "--startup-timeout",
]);

/** Parses `acp chat` arguments; throws an Error with a readable message on bad ones. `"help"` for --help. */
export function parseChatArgs(args: readonly string[]): ChatArgs | "help" {
  const options: { -readonly [K in keyof ChatArgs]: ChatArgs[K] } = { agentArgv: [], setupFlags: noAgentSetupFlags() };
  const remoteFlags = noRemoteAgentFlags();
  let agent: string[] | undefined;
  let agentUrl: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = () => flagValue(args, ++i, arg, (word) => CHAT_FLAGS.has(word), "acp chat --help lists them");
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
      case "--agent": {
        const line = value();
        checkAgentValue(line);
        if (/^(https?|wss?):\/\//i.test(line.trim())) agentUrl = line;
        else agent = splitCommandLine(line);
        break;
      }
      case "--token":
      case "--token-file":
      case "--header":
      case "--profile":
        setRemoteAgentFlag(remoteFlags, arg, value());
        break;
      case "--resume":
        options.resume = value();
        break;
      case "--attach":
      case "--observe":
        options.attach = { sessionId: value(), role: arg === "--attach" ? "controller" : "observer" };
        if (/^(https?|wss?):\/\//i.test(args[i + 1] ?? "")) agentUrl = args[++i];
        break;
      case "--verbose":
        options.verbose = true;
        break;
      case "--no-color":
        options.noColor = true;
        break;
      case "--startup-timeout": {
        const ms = Number(value());
        if (!Number.isFinite(ms) || ms <= 0)
          throw new Error("--startup-timeout takes a positive number of milliseconds");
        options.startupTimeoutMs = ms;
        break;
      }
      default:
        if (!arg.startsWith("--") || !setAgentSetupFlag(options.setupFlags, arg, args[i + 1] ?? ""))
          throw new Error(`unknown option ${arg} (acp chat --help lists them)`);
        i++;
    }
  }
  if (agent !== undefined && agent.length === 0) throw new Error("no agent program after --");
  if (options.attach !== undefined && agentUrl === undefined)
    throw new Error("--attach and --observe join a session on a server: give its URL (acp chat --attach ID URL)");
  const remote = remoteAgentSpec(agentUrl, remoteFlags, process.env, (text) =>
    process.stderr.write(`acp chat: ${text}\n`),
  );
  if (remote !== undefined) options.remote = remote;
  options.agentArgv = remote ? [] : (agent ?? defaultAgentArgv());
  return options;
}

/**
 * What the agent-setup flags set up once the chat knows its cwd and its asking policy: MCP servers (read and
 * checked), the permission policy (`ask` is the chat's own prompt), the trace file, `--auth`. Throws `UsageError`.
 */
export function chatSetup(flags: AgentSetupFlags): NonNullable<ChatOptions["setup"]> {
  return (cwd, ask, warn) => {
    const mcpServers = loadMcpServers(flags, cwd);
    const { name, policy } = buildPolicy(flags.permissions, { ask: () => ask });
    const trace = openTraceFlag(flags.trace, warn);
    return {
      policy,
      policyName: name,
      mcpServers,
      ...(trace ? { tap: trace.listener, close: () => trace.close() } : {}),
      ...(flags.auth !== undefined ? { auth: flags.auth } : {}),
    };
  };
}

/** Runs `acp chat` with its arguments; resolves with the exit code. */
export async function chatCommand(args: readonly string[]): Promise<number> {
  let options: ChatArgs | "help";
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
  const { setupFlags, ...chatOptions } = options;
  return runChat({ ...chatOptions, setup: chatSetup(setupFlags) });
}
