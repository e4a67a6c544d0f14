/**
 * `acp chat`: wires a `ChatSession` (the agent) to a `ChatUi` (the terminal) and runs until the user leaves.
 */
import { withTokenHint } from "../shared/token-hint.js";
import { isAbsolute, resolve } from "node:path";
import { interactive, withMemory, type PermissionPolicy } from "@acpkit/sdk/client-toolkit";
import type { TapListener } from "@acpkit/sdk";
import type { McpServer } from "@acpkit/sdk";
import type { AgentSpec } from "@acpkit/sdk/node";
import { ChatSession } from "./chat-session.js";
import { ChatUi, type ChatTerminal } from "./chat-ui.js";
import { chatPainterFor } from "./paint.js";
import { errorLines } from "./render-entry.js";
import { sanitize } from "./text-layout.js";

/** What `runChat` needs. */
export interface ChatOptions {
  /** The agent's program and arguments. */
  agentArgv: readonly string[];
  /** A remote agent (`--agent URL`) to connect to instead. */
  remote?: Extract<AgentSpec, { url: string }>;
  /** Working directory of the session (default: this process's). */
  cwd?: string;
  /** Load or resume this session instead of starting a new one. */
  resume?: string;
  /** Join this live shared session (on `acp serve`) instead: as a controller, or as an observer. */
  attach?: { sessionId: string; role: "controller" | "observer" };
  /** Print the agent's stderr lines (dimmed). */
  verbose?: boolean;
  /** Force colours off. */
  noColor?: boolean;
  /** Deadline for the agent's `initialize`. */
  startupTimeoutMs?: number;
  /**
   * Sets up what the command line asked for (MCP servers, trace, permission policy, authentication), given the
   * chat's own asking policy. Called first; an error it throws is a usage error: printed, exit code 2.
   */
  setup?: (cwd: string, ask: PermissionPolicy, warn?: (text: string) => void) => ChatSetup;
}

/** What `ChatOptions.setup` gives. */
export interface ChatSetup {
  /** The permission policy (default: `ask`). */
  policy?: PermissionPolicy;
  /** Its name as given to --permissions (default "ask"); see `ChatSessionOptions.policyName`. */
  policyName?: string;
  /** MCP servers for every session. */
  mcpServers?: readonly McpServer[];
  /** Sees every message both ways (a trace). */
  tap?: TapListener;
  /** Authenticate with this method before the first session. */
  auth?: string;
  /** Called when the chat ends (closes the trace). */
  close?: () => void;
}

/** The process streams (injectable for tests). */
export interface ChatIo {
  stdin: ChatTerminal["input"];
  stdout: ChatTerminal["output"];
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
}

/** Runs the chat; resolves with the process exit code. */
export async function runChat(
  options: ChatOptions,
  io: ChatIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const cwd = options.cwd === undefined ? process.cwd() : isAbsolute(options.cwd) ? options.cwd : resolve(options.cwd);
  const env = options.noColor ? { ...io.env, NO_COLOR: "1" } : io.env;
  let ui: ChatUi | undefined;
  const ask = withMemory(interactive((request, context) => ui!.ask(request, context.signal)));
  let setup: ChatSetup;
  try {
    const warn = (text: string) => (ui ? ui.print([text]) : io.stderr.write(`${text}\n`));
    setup = options.setup?.(cwd, ask, warn) ?? {};
  } catch (error) {
    io.stderr.write(`acp chat: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  try {
    return await chatWith(options, setup, ask, cwd, env, io, (created) => (ui = created));
  } finally {
    setup.close?.();
  }
}

async function chatWith(
  options: ChatOptions,
  setup: ChatSetup,
  ask: PermissionPolicy,
  cwd: string,
  env: NodeJS.ProcessEnv,
  io: ChatIo,
  created: (ui: ChatUi) => void,
): Promise<number> {
  const paint = chatPainterFor(io.stdout, env);
  const tty = Boolean(io.stdin.isTTY && io.stdout.isTTY);
  const ui = new ChatUi({ input: io.stdin, output: io.stdout, tty, paint, ascii: env.TERM === "dumb" });
  created(ui);
  ui.print([
    paint.dim(options.remote ? `connecting to ${options.remote.url}` : `starting ${options.agentArgv.join(" ")}`),
  ]);
  let chat: ChatSession;
  try {
    chat = await ChatSession.start({
      argv: options.agentArgv,
      ...(options.remote ? { remote: options.remote } : {}),
      cwd,
      ask: ui.ask,
      policy: setup.policy ?? ask,
      policyName: setup.policyName ?? "ask",
      ...(setup.mcpServers ? { mcpServers: setup.mcpServers } : {}),
      ...(setup.tap ? { tap: setup.tap } : {}),
      onNote: (text: string) => ui.print([paint.dim(sanitize(text))]),
      onWarning: (text: string) => ui.print([paint.yellow(`warning: ${sanitize(text)}`)]),
      onCancelIgnored: () => ui.agentIgnoredCancel(),
      onSession: () => ui.showSession(),
      onTerminal: () => ui.refresh(),
      ...(options.verbose ? { onStderrLine: (line: string) => ui.print([paint.dim(`agent| ${sanitize(line)}`)]) } : {}),
      ...(options.startupTimeoutMs !== undefined ? { startupTimeoutMs: options.startupTimeoutMs } : {}),
    });
  } catch (error) {
    io.stderr.write(`acp chat: ${sanitize(withTokenHint(error instanceof Error ? error.message : String(error)))}\n`);
    return 1;
  }
  ui.attach(chat);
  try {
    const version = chat.init.agentInfo?.version ? ` ${chat.init.agentInfo.version}` : "";
    ui.print([
      `${paint.green("connected")} to ${paint.bold(sanitize(chat.agentName))}${sanitize(version)} (protocol ` +
        `v${chat.init.protocolVersion})`,
    ]);
    try {
      if (setup.auth !== undefined) await chat.authenticate(setup.auth);
      if (options.attach !== undefined) await chat.attach(options.attach.sessionId, options.attach.role);
      else if (options.resume !== undefined) await chat.resume(options.resume);
      else await chat.newSession();
      ui.print([sessionBanner(chat, paint)]);
    } catch (error) {
      const [first, ...rest] = errorLines(error);
      ui.print([paint.red(`could not start a session: ${first ?? ""}`), ...rest.map((line) => paint.dim(line))]);
      if ((chat.init.authMethods ?? []).length > 0)
        ui.print([paint.yellow("this agent offers authentication: :auth lists the methods, then :new")]);
    }
    ui.print([paint.dim("Type a message, /command, @file; :help for chat commands; Ctrl-C cancels, Ctrl-D quits.")]);
    return await ui.run();
  } finally {
    await ui.chat.close();
  }
}

function sessionBanner(chat: ChatSession, paint: ReturnType<typeof chatPainterFor>): string {
  const transcript = chat.transcript!;
  const parts = [`session ${paint.bold(sanitize(chat.sessionId ?? "?"))}`, paint.dim(chat.cwd)];
  const mode = transcript.state.modes?.availableModes.find((m) => m.id === transcript.currentModeId);
  if (mode) parts.push(`mode ${paint.cyan(sanitize(mode.name))}`);
  const model = transcript.configOptions?.find((o) => o.category === "model");
  if (model) parts.push(`model ${paint.cyan(sanitize(String(model.currentValue)))}`);
  return parts.join(" · ");
}
