/**
 * Client access for a prompt turn: text files and terminals through the client, each checking the client's
 * capabilities first, and `runCommand`, which runs a command in a client terminal with a timeout and always releases
 * it. Requests carry the turn's signal, so cancelling the turn cancels them; kill and release do not, so they still
 * happen after a cancel.
 * The spec: the agent MUST NOT call `fs/*` or `terminal/*` methods the client did not advertise
 * (`clientCapabilities.fs.readTextFile`, `fs.writeTextFile`, `terminal`); paths MUST be absolute; the agent MUST
 * release every terminal it created (`terminal/release`), and uses `terminal/kill` to stop a command but keep its
 * output, e.g. for timeouts.
 * @see https://agentclientprotocol.com/protocol/file-system
 * @see https://agentclientprotocol.com/protocol/terminals
 */
import { CapabilityMissingError, InvalidResponseError, type SendRequestOptions } from "../../jsonrpc/index.js";
import type { Logger } from "../../jsonrpc/logger.js";
import {
  hasCapability,
  type ClientCapabilities,
  type CreateTerminalResponse,
  type EnvVariable,
  type ReadTextFileResponse,
  type TerminalExitStatus,
  type TerminalOutputResponse,
  type ToolCallContent,
  type WaitForTerminalExitResponse,
} from "../../protocol/index.js";
import { isAbortError } from "./cancelled.js";
import type { ClientPort } from "./session.js";
import { terminalContent, type ToolCallHandle } from "./tool-calls.js";

/** What client access needs of a turn (a `PromptTurn` is one). */
export interface ClientAccessContext {
  readonly sessionId: string;
  readonly signal: AbortSignal;
  readonly session: {
    readonly clientCapabilities: ClientCapabilities;
    readonly client: ClientPort;
    readonly logger: Logger;
  };
  request<R = unknown>(method: string, params?: unknown, options?: SendRequestOptions): Promise<R>;
}

/** How long kill and release (which ignore the turn's cancellation) may take before they are given up. */
const CLEANUP_TIMEOUT_MS = 10_000;

/** Throws `CapabilityMissingError` naming the capability unless the client advertised it; nothing is sent. */
export function requireClientCapability(context: ClientAccessContext, method: string, path: readonly string[]): void {
  if (!hasCapability(context.session.clientCapabilities, path))
    throw new CapabilityMissingError(method, `clientCapabilities.${path.join(".")}`);
}

/**
 * Reads a text file through the client (`fs/read_text_file`); `line` is 1-based, `limit` a line count. An answer
 * without a string `content` is the client's mistake: `InvalidResponseError` says so, never a `TypeError` later.
 */
export async function readFile(
  context: ClientAccessContext,
  path: string,
  range: { line?: number; limit?: number } = {},
): Promise<string> {
  requireClientCapability(context, "fs/read_text_file", ["fs", "readTextFile"]);
  const response = await context.request<ReadTextFileResponse>("fs/read_text_file", {
    sessionId: context.sessionId,
    path,
    ...range,
  });
  const content = (response as { content?: unknown } | null | undefined)?.content;
  if (typeof content !== "string")
    throw new InvalidResponseError(
      "fs/read_text_file",
      `it has no string "content" (${content === undefined ? "none" : `a ${content === null ? "null" : Array.isArray(content) ? "list" : typeof content}`} instead)`,
    );
  return content;
}

/** Writes a text file through the client (`fs/write_text_file`), creating it if needed. */
export async function writeFile(context: ClientAccessContext, path: string, content: string): Promise<void> {
  requireClientCapability(context, "fs/write_text_file", ["fs", "writeTextFile"]);
  await context.request("fs/write_text_file", { sessionId: context.sessionId, path, content });
}

/** What starts a terminal. `env` as an object or the wire's name/value list. */
export interface TerminalOptions {
  command: string;
  args?: string[];
  /** Absolute working directory (default: the client's choice, normally the session's cwd). */
  cwd?: string;
  env?: Record<string, string> | EnvVariable[];
  /** Bytes of output the client keeps (it drops the oldest beyond that). */
  outputByteLimit?: number;
}

/** A terminal the client runs for a turn. Release it exactly once (`release` is idempotent here). */
export class ClientTerminal {
  readonly id: string;
  readonly #context: ClientAccessContext;
  #released: Promise<void> | undefined;

  constructor(context: ClientAccessContext, terminalId: string) {
    this.#context = context;
    this.id = terminalId;
  }

  get released(): boolean {
    return this.#released !== undefined;
  }

  /** Tool call content that embeds this terminal (the client shows its live output). */
  content(): ToolCallContent {
    return terminalContent(this.id);
  }

  /** The output so far (`terminal/output`); cancelled with the turn. */
  output(): Promise<TerminalOutputResponse> {
    return this.#context.request("terminal/output", this.#ids());
  }

  /** Waits for the command to exit (`terminal/wait_for_exit`); cancelled with the turn, or by `signal`. */
  waitForExit(signal?: AbortSignal): Promise<WaitForTerminalExitResponse> {
    if (signal === undefined) return this.#context.request("terminal/wait_for_exit", this.#ids());
    const both = AbortSignal.any([this.#context.signal, signal]);
    return this.#context.session.client.request("terminal/wait_for_exit", this.#ids(), {
      cancellationSignal: both,
      stopWaitingOnCancel: true,
    });
  }

  /** Kills the command, keeping the terminal and its output (`terminal/kill`). Not cancelled with the turn. */
  async kill(): Promise<void> {
    await this.#context.session.client.request("terminal/kill", this.#ids(), { timeoutMs: CLEANUP_TIMEOUT_MS });
  }

  /**
   * Releases the terminal (`terminal/release`; the client kills a command still running). Once; not cancelled with the
   * turn.
   */
  release(): Promise<void> {
    return (this.#released ??= this.#context.session.client
      .request("terminal/release", this.#ids(), { timeoutMs: CLEANUP_TIMEOUT_MS })
      .then(() => undefined));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.release();
  }

  #ids(): { sessionId: string; terminalId: string } {
    return { sessionId: this.#context.sessionId, terminalId: this.id };
  }
}

function envList(env: TerminalOptions["env"]): EnvVariable[] | undefined {
  if (env === undefined) return undefined;
  return Array.isArray(env)
    ? env.map(({ name, value }) => ({ name, value }))
    : Object.entries(env).map(([name, value]) => ({ name, value }));
}

/** Starts a command in a client terminal (`terminal/create`); the caller must release it. */
export async function createTerminal(context: ClientAccessContext, options: TerminalOptions): Promise<ClientTerminal> {
  requireClientCapability(context, "terminal/create", ["terminal"]);
  const params: Record<string, unknown> = { sessionId: context.sessionId, command: options.command };
  if (options.args !== undefined) params.args = options.args;
  if (options.cwd !== undefined) params.cwd = options.cwd;
  const env = envList(options.env);
  if (env !== undefined) params.env = env;
  if (options.outputByteLimit !== undefined) params.outputByteLimit = options.outputByteLimit;
  const response = await context.request<CreateTerminalResponse>("terminal/create", params);
  return new ClientTerminal(context, response.terminalId);
}

/** Options of `runCommand`. */
export interface RunCommandOptions extends TerminalOptions {
  /** Kill the command after this long (then collect its output). Default: no timeout. */
  timeoutMs?: number;
  /** A tool call to embed the terminal in (its content gets `{ type: "terminal", terminalId }`). */
  toolCall?: ToolCallHandle;
}

/** What `runCommand` returns. `exitStatus` is null when the client reported none (e.g. killed but not yet reaped). */
export interface RunCommandResult {
  terminalId: string;
  exitStatus: TerminalExitStatus | null;
  output: string;
  truncated: boolean;
  timedOut: boolean;
}

/**
 * Runs a command in a client terminal: create -> wait for exit (or time out -> kill) -> collect output, and
 * release in every case (exit, timeout, turn cancelled, error). A cancelled turn rejects with the abort error after
 * the terminal was released.
 */
export async function runCommand(context: ClientAccessContext, options: RunCommandOptions): Promise<RunCommandResult> {
  const terminal = await createTerminal(context, options);
  const timer = new AbortController();
  const handle = options.timeoutMs === undefined ? undefined : setTimeout(() => timer.abort(), options.timeoutMs);
  try {
    if (options.toolCall !== undefined) await options.toolCall.addContent(terminal.content());
    let exitStatus: TerminalExitStatus | null = null;
    let timedOut = false;
    try {
      exitStatus = await terminal.waitForExit(timer.signal);
    } catch (error) {
      if (!(timer.signal.aborted && !context.signal.aborted && isAbortError(error))) throw error;
      timedOut = true;
      await terminal.kill();
    }
    const collected = await terminal.output();
    const status = collected.exitStatus ?? exitStatus;
    return {
      terminalId: terminal.id,
      exitStatus: status ?? null,
      output: collected.output,
      truncated: collected.truncated,
      timedOut,
    };
  } finally {
    if (handle !== undefined) clearTimeout(handle);
    await terminal.release().catch((error: unknown) => {
      context.session.logger.warn("could not release a terminal", {
        sessionId: context.sessionId,
        terminalId: terminal.id,
        detail: String(error),
      });
    });
  }
}
