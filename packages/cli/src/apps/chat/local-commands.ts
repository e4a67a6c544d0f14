/**
 * The chat's own commands, prefixed with `:` so they never clash with the agent's `/` commands: help, modes,
 * config options (the model among them), sessions, thoughts, usage, authentication and quitting.
 */
import type { SessionConfigOption, SessionConfigSelectOption } from "@acpkit/sdk";
import type { ChatSession } from "./chat-session.js";
import type { ChatPainter } from "./paint.js";
import { authMethodKind, authMethodType } from "@acpkit/sdk/client-toolkit";
import { errorText, renderUsage } from "./render-entry.js";
import { sanitize } from "./text-layout.js";

/** The names `:` completes, in help order. */
export const LOCAL_COMMANDS = [
  "help",
  "mode",
  "model",
  "config",
  "sessions",
  "resume",
  "new",
  "thoughts",
  "usage",
  "auth",
  "restart",
  "quit",
] as const;

const HELP: Record<(typeof LOCAL_COMMANDS)[number], string> = {
  help: "this help",
  mode: ":mode [ID]      list the session modes, or switch to one",
  model: ":model [VALUE]  list the models, or pick one (the config option of category model)",
  config: ":config [ID VALUE]  list the config options, or set one",
  sessions: "list the agent's sessions for this directory",
  resume: ":resume ID      load (or resume) a session",
  new: "start a new session",
  thoughts: "show thoughts whole, or collapsed (toggles)",
  usage: "show context usage and cost",
  auth: ":auth [ID]      list the agent's auth methods, or authenticate with one",
  restart: "stop the agent and start it again, continuing the session when it can",
  quit: "leave (also Ctrl-D, or Ctrl-C twice)",
};

/** What a local command needs from the UI. */
export interface LocalCommandHost {
  readonly chat: ChatSession;
  readonly paint: ChatPainter;
  /** Prints lines to the scrollback. */
  print(lines: readonly string[]): void;
  /** Flips thoughts between whole and collapsed; returns the new setting. */
  toggleThoughts(): boolean;
  /** A new current transcript (after `:new` or `:resume`). */
  showSession(): void;
  /** Stops the agent, starts it again and continues the session (`:restart`). */
  restart(): Promise<void>;
}

/** Runs `:name args`. Resolves `"quit"` for `:quit`. Errors are printed, never thrown. */
export async function runLocalCommand(
  host: LocalCommandHost,
  name: string,
  args: readonly string[],
): Promise<"quit" | void> {
  const { chat, paint } = host;
  try {
    switch (name) {
      case "q":
      case "quit":
      case "exit":
        return "quit";
      case "h":
      case "help":
      case "":
        return host.print(help(paint));
      case "mode":
        return await mode(host, args[0]);
      case "model":
        return await model(host, args[0]);
      case "config":
        return await config(host, args[0], args.slice(1).join(" "));
      case "sessions": {
        const sessions = await chat.listSessions();
        if (sessions.length === 0) return host.print([paint.dim("no sessions")]);
        return host.print(
          sessions.map((s) =>
            (
              `  ${paint.bold(sanitize(s.sessionId))}  ${sanitize(s.title ?? "")}  ` +
              `${paint.dim(sanitize(s.updatedAt ?? ""))}`
            ).trimEnd(),
          ),
        );
      }
      case "resume":
      case "load":
        if (args[0] === undefined) return host.print([paint.red("usage: :resume SESSION_ID (see :sessions)")]);
        await chat.resume(args[0]);
        host.showSession();
        return host.print([paint.green(`resumed session ${sanitize(args[0])}`)]);
      case "new":
        await chat.newSession();
        host.showSession();
        return host.print([paint.green(`new session ${sanitize(chat.sessionId ?? "?")}`)]);
      case "thoughts":
        return host.print([paint.dim(host.toggleThoughts() ? "thoughts: shown whole" : "thoughts: collapsed")]);
      case "usage":
        return host.print([
          renderUsage(chat.transcript?.usage, paint) || paint.dim("the agent has reported no usage yet"),
        ]);
      case "auth":
        return await auth(host, args[0]);
      case "restart":
        return await host.restart();
      default:
        return host.print([paint.red(`unknown command :${name}; :help lists the commands`)]);
    }
  } catch (error) {
    host.print([paint.red(`:${name} failed: ${errorText(error)}`)]);
  }
}

function help(paint: ChatPainter): string[] {
  return [
    paint.bold("Chat commands"),
    ...LOCAL_COMMANDS.map((name) =>
      HELP[name].startsWith(":") ? `  ${HELP[name]}` : `  :${name.padEnd(14)} ${HELP[name]}`,
    ),
    paint.bold("Typing"),
    "  /command …     an agent slash command (Tab completes)",
    "  @path          attach a file (embedded when the agent accepts it, else linked; Tab completes)",
    "  ::text         send text that starts with ':'",
    "  Ctrl-C         cancel the running turn (twice: quit)",
  ];
}

async function mode(host: LocalCommandHost, id: string | undefined): Promise<void> {
  const { chat, paint } = host;
  const modes = chat.transcript?.state.modes;
  if (modes === undefined) return host.print([paint.dim("this agent has no session modes")]);
  if (id === undefined) {
    return host.print(
      modes.availableModes.map(
        (m) =>
          `  ${m.id === chat.transcript?.currentModeId ? paint.green("●") : " "} ${paint.bold(sanitize(m.id))}  ` +
          `${sanitize(m.name)}${m.description ? paint.dim(` — ${sanitize(m.description)}`) : ""}`,
      ),
    );
  }
  const found = modes.availableModes.find((m) => m.id === id || m.name.toLowerCase() === id.toLowerCase());
  if (found === undefined) return host.print([paint.red(`no mode ${id}; :mode lists them`)]);
  await chat.setMode(found.id);
  host.print([paint.green(`mode: ${sanitize(found.name)}`)]);
}

/** The flat list of a select option's values. */
export function selectValues(option: SessionConfigOption): SessionConfigSelectOption[] {
  if (option.type !== "select") return [];
  return option.options.flatMap((entry) => ("group" in entry ? entry.options : [entry]));
}

async function model(host: LocalCommandHost, value: string | undefined): Promise<void> {
  const option = host.chat.transcript?.configOptions?.find((o) => o.category === "model");
  if (option === undefined) return host.print([host.paint.dim("this agent offers no model choice")]);
  return config(host, option.id, value ?? "");
}

async function config(host: LocalCommandHost, id: string | undefined, value: string): Promise<void> {
  const { chat, paint } = host;
  const options = chat.transcript?.configOptions ?? [];
  if (options.length === 0) return host.print([paint.dim("this agent has no config options")]);
  if (id === undefined)
    return host.print(
      options.map(
        (o) =>
          `  ${paint.bold(sanitize(o.id))}  ${sanitize(o.name)} = ` +
          `${paint.cyan(sanitize(String(o.currentValue)))}${o.category ? paint.dim(` (${sanitize(o.category)})`) : ""}`,
      ),
    );
  const option = options.find((o) => o.id === id);
  if (option === undefined) return host.print([paint.red(`no config option ${id}; :config lists them`)]);
  if (value === "") {
    if (option.type === "boolean")
      return host.print([
        `  ${sanitize(option.name)} = ${paint.cyan(sanitize(String(option.currentValue)))} (true or false)`,
      ]);
    return host.print(
      selectValues(option).map(
        (v) =>
          `  ${v.value === option.currentValue ? paint.green("●") : " "} ${paint.bold(sanitize(v.value))}  ` +
          `${sanitize(v.name)}${v.description ? paint.dim(` — ${sanitize(v.description)}`) : ""}`,
      ),
    );
  }
  if (option.type === "boolean") {
    if (value !== "true" && value !== "false") return host.print([paint.red(`${option.id} takes true or false`)]);
    await chat.setConfig(option.id, value === "true");
  } else {
    const found = selectValues(option).find((v) => v.value === value || v.name.toLowerCase() === value.toLowerCase());
    if (found === undefined)
      return host.print([paint.red(`${option.id} has no value ${value}; :config ${option.id} lists them`)]);
    await chat.setConfig(option.id, found.value);
  }
  const now = chat.transcript?.configOptions?.find((o) => o.id === option.id);
  host.print([paint.green(sanitize(`${option.name}: ${String(now?.currentValue ?? value)}`))]);
}

async function auth(host: LocalCommandHost, id: string | undefined): Promise<void> {
  const { chat, paint } = host;
  const methods = chat.init.authMethods ?? [];
  if (id === undefined) {
    if (methods.length === 0) return host.print([paint.dim("this agent needs no authentication")]);
    return host.print(
      methods.map((m) => {
        const kind = authMethodKind(m);
        const type =
          kind === "unknown"
            ? paint.yellow(
                ` (type ${sanitize(authMethodType(m))}, unknown to this client: :auth ${sanitize(m.id)} sends ` +
                  `it anyway)`,
              )
            : kind === "terminal"
              ? paint.dim(" (terminal login)")
              : "";
        return (
          `  ${paint.bold(sanitize(m.id))}  ` +
          `${sanitize(m.name)}${m.description ? paint.dim(` — ${sanitize(m.description)}`) : ""}${type}`
        );
      }),
    );
  }
  host.print([paint.green(`authenticated with ${sanitize(await chat.authenticate(id))}`)]);
}
