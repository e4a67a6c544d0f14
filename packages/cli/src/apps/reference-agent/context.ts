/**
 * What every command and tool of the reference agent gets: the prompt turn, the session's state, its mode and
 * MCP connections, and the agent's options. Paths from users and models may be relative to the session's `cwd`;
 * on the wire they are always absolute (`resolvePath`).
 */
import path from "node:path";
import type { McpConnector, McpSessionTools, PromptTurn } from "@acpkit/sdk/agent-toolkit";
import type { Logger } from "@acpkit/sdk";
import { MODEL_OPTION, SCRIPTED } from "./config-options.js";
import { sessionMcp } from "./mcp.js";
import { DEFAULT_MODE } from "./modes.js";
import type { ModelConfig } from "./model/config.js";
import { dataRecord, type RefData, type RefState } from "./state.js";

/** The agent-wide settings. */
export interface AgentSettings {
  model: ModelConfig | undefined;
  /** Default `/run` timeout. */
  runTimeoutMs: number;
  /** How long a `/grep` search may run before it is stopped (default 10 s). */
  grepTimeLimitMs?: number;
  logger: Logger;
  /** Connects sessions to the MCP servers clients name; without it, sessions have none. */
  mcp?: McpConnector;
}

export interface TurnContext {
  readonly turn: PromptTurn<RefState>;
  readonly state: RefState;
  readonly settings: AgentSettings;
  readonly mcp: McpSessionTools;
}

/** The context of a turn. */
export function turnContext(turn: PromptTurn<RefState>, settings: AgentSettings): TurnContext {
  return { turn, state: turn.session.state, settings, mcp: sessionMcp(turn) };
}

/** The session's mode (ask, code or architect). */
export function modeOf(ctx: TurnContext): string {
  return ctx.turn.session.settings?.modeId ?? DEFAULT_MODE;
}

/** The session's `model` option: the configured model's name, or scripted. */
export function modelChoice(ctx: TurnContext): string {
  const value = ctx.turn.session.settings?.value(MODEL_OPTION);
  return typeof value === "string" ? value : SCRIPTED;
}

/** An absolute path: `target` as is when absolute, else resolved against the session's `cwd`. */
export function resolvePath(ctx: TurnContext, target: string): string {
  const impl = /^[A-Za-z]:[\\/]/.test(ctx.turn.session.cwd) ? path.win32 : path.posix;
  return impl.isAbsolute(target) ? impl.normalize(target) : impl.resolve(ctx.turn.session.cwd, target);
}

/** `target` relative to the session's `cwd` for display (absolute when outside it). */
export function displayPath(ctx: TurnContext, target: string): string {
  const rel = path.relative(ctx.turn.session.cwd, target);
  return rel === "" ? "." : rel.startsWith("..") || path.isAbsolute(rel) ? target : rel;
}

/** Records agent-private data in the session's history (for rebuilding state on load). */
export function remember(ctx: TurnContext, data: RefData): void {
  ctx.turn.session.record(dataRecord(data));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
