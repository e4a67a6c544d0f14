/**
 * What every command and tool of the reference agent gets: the prompt turn, the session's state, the client's
 * capabilities, the session's MCP hub and the agent's options. Paths from users and models may be relative to the
 * session's `cwd`; on the wire they are always absolute (`resolvePath`).
 */
import path from "node:path";
import type { PromptTurn } from "../../agent/toolkit/index.js";
import type { Logger } from "../../jsonrpc/logger.js";
import type { ClientCapabilities } from "../../protocol/index.js";
import type { McpHub } from "./mcp.js";
import type { ModelConfig } from "./model/config.js";
import { dataRecord, type RefData, type RefState } from "./state.js";

/** The agent-wide settings. */
export interface AgentSettings {
  model: ModelConfig | undefined;
  /** Default `/run` timeout. */
  runTimeoutMs: number;
  logger: Logger;
}

export interface TurnContext {
  readonly turn: PromptTurn<RefState>;
  readonly state: RefState;
  readonly settings: AgentSettings;
  readonly mcp: McpHub;
  /** The client's capabilities from `initialize`. */
  readonly clientCapabilities: ClientCapabilities;
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
