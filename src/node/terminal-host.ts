/**
 * The client's terminal host: `terminal/create`, `terminal/output`, `terminal/wait_for_exit`, `terminal/kill` and
 * `terminal/release`, each command in its own process group, its working directory inside the session's roots.
 *
 * Spec: https://agentclientprotocol.com/protocol/terminals — `terminal/create` returns a terminal id at once while
 * the command runs; `outputByteLimit` truncates from the beginning at a character boundary; `terminal/kill`
 * stops the command but the terminal stays valid; the agent MUST `terminal/release` it, which kills a command
 * still running. Clients advertise this with `clientCapabilities.terminal`.
 *
 * Not a sandbox: the command is any program the agent names (run without a shell); only its `cwd` is confined.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { ErrorCodes, RequestError } from "../jsonrpc/request-error.js";
import { silentLogger, type Logger } from "../jsonrpc/logger.js";
import type * as schema from "../protocol/index.js";
import { OutputBuffer } from "./output-buffer.js";
import { confinePath, type RootsProvider } from "./path-confinement.js";
import { isGroupAlive, terminateGroup, trackGroup, untrackGroup } from "./process-group.js";

/** Live output of a terminal, as it arrives (decoded per stream; never split inside a character). */
export interface TerminalOutputEvent {
  sessionId: string;
  terminalId: string;
  stream: "stdout" | "stderr";
  text: string;
}

/** A terminal's command ended. */
export interface TerminalExitEvent {
  sessionId: string;
  terminalId: string;
  exitStatus: schema.TerminalExitStatus;
}

/** What the host knows of a terminal. */
export interface TerminalInfo {
  terminalId: string;
  sessionId: string;
  pid: number;
  argv: readonly string[];
  cwd: string;
  exitStatus: schema.TerminalExitStatus | undefined;
}

/** Options of `TerminalHost`. */
export interface TerminalHostOptions {
  /** The roots of a session (its `cwd` and `additionalDirectories`); undefined for an unknown session. */
  roots: RootsProvider;
  /** The environment the request's `env` is added to. Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Output kept when the request gives no `outputByteLimit`, and the most ever kept. Default 16 MiB. */
  maxOutputBytes?: number;
  /** How long SIGTERM has to stop a command's group before SIGKILL. Default 2000. */
  killGraceMs?: number;
  /** Called with live output (e.g. to show a terminal embedded in a tool call). */
  onOutput?: (event: TerminalOutputEvent) => void;
  /** Called when a command ends. */
  onExit?: (event: TerminalExitEvent) => void;
  /** Default: silent. */
  logger?: Logger;
}

interface Terminal extends TerminalInfo {
  child: ChildProcess;
  output: OutputBuffer;
  exited: Promise<schema.TerminalExitStatus>;
}

/** How long to wait, after a command exited, for the rest of its output. */
const DRAIN_MS = 200;

/**
 * Implements the `Client` terminal methods. Use it as (part of) the client handler, e.g.
 * `createTerminal: (p) => host.createTerminal(p)`; call `releaseSession(id)` when a session ends and
 * `releaseAll()` (or `releaseAllWhenClosed(connection)`) when the connection ends: every command still running is
 * killed with its whole process group. Commands are also killed if this process exits (see `process-group.ts`).
 *
 * Errors (`RequestError`s): -32602 for a relative `cwd`, one outside the session's roots (`data.reason:
 * "outside_roots"`) or not a directory, or a command that could not be started (`data.code`, e.g. ENOENT);
 * -32002 for an unknown terminal (or one of another session) or a session without roots.
 */
export class TerminalHost {
  private readonly options: TerminalHostOptions;
  private readonly logger: Logger;
  private readonly terminalsById = new Map<string, Terminal>();
  private readonly outputListeners = new Set<(event: TerminalOutputEvent) => void>();
  private readonly exitListeners = new Set<(event: TerminalExitEvent) => void>();

  constructor(options: TerminalHostOptions) {
    this.options = options;
    this.logger = options.logger ?? silentLogger;
    if (options.onOutput) this.outputListeners.add(options.onOutput);
    if (options.onExit) this.exitListeners.add(options.onExit);
  }

  /** Listens to live output or exits; returns a function that stops listening. */
  on(event: "output", listener: (event: TerminalOutputEvent) => void): () => void;
  on(event: "exit", listener: (event: TerminalExitEvent) => void): () => void;
  on(event: "output" | "exit", listener: (event: any) => void): () => void {
    const set: Set<(event: any) => void> = event === "output" ? this.outputListeners : this.exitListeners;
    set.add(listener);
    return () => set.delete(listener);
  }

  /** The terminals not yet released. */
  terminals(): TerminalInfo[] {
    return [...this.terminalsById.values()].map(({ terminalId, sessionId, pid, argv, cwd, exitStatus }) => ({ terminalId, sessionId, pid, argv, cwd, exitStatus }));
  }

  /** Starts `command args` (no shell) in its own process group, in `cwd` (default: the session's first root). */
  async createTerminal(params: schema.CreateTerminalRequest): Promise<schema.CreateTerminalResponse> {
    if (typeof params.command !== "string" || params.command === "") throw RequestError.invalidParams({ command: params.command }, "command must be a non-empty string");
    const roots = this.options.roots(params.sessionId);
    const cwd = (await confinePath(params.cwd ?? roots?.[0] ?? "", roots, "cwd")).real;
    const isDirectory = await stat(cwd).then((s) => s.isDirectory(), () => false);
    if (!isDirectory) throw RequestError.invalidParams({ cwd: params.cwd, reason: "not_a_directory" }, `cwd ${cwd} is not an existing directory`);
    const max = this.options.maxOutputBytes ?? 16 * 1024 * 1024;
    const limit = params.outputByteLimit == null ? max : Math.min(params.outputByteLimit, max);
    if (!Number.isInteger(limit) || limit < 0) throw RequestError.invalidParams({ outputByteLimit: params.outputByteLimit }, "outputByteLimit must be a non-negative integer");

    const env: NodeJS.ProcessEnv = { ...(this.options.env ?? process.env) };
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    const argv = [params.command, ...(params.args ?? [])];
    const child = spawn(params.command, params.args ?? [], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once("spawn", resolve);
        child.once("error", reject);
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw RequestError.invalidParams({ command: params.command, code }, `could not start ${JSON.stringify(params.command)}: ${(error as Error).message}`);
    }
    child.on("error", () => {});
    const pid = child.pid!;
    trackGroup(pid);
    const terminalId = `term_${randomUUID()}`;
    const output = new OutputBuffer(limit);
    const terminal: Terminal = { terminalId, sessionId: params.sessionId, pid, argv, cwd, exitStatus: undefined, child, output, exited: undefined! };
    for (const name of ["stdout", "stderr"] as const) {
      const decoder = new StringDecoder("utf8");
      const stream = child[name]!;
      stream.on("error", () => {});
      stream.on("data", (chunk: Buffer) => {
        output.append(chunk);
        const text = decoder.write(chunk);
        if (text !== "") this.emit(this.outputListeners, { sessionId: params.sessionId, terminalId, stream: name, text });
      });
    }
    terminal.exited = new Promise((resolve) => {
      child.once("exit", (code: number | null, signal: NodeJS.Signals | null) => {
        const finish = () => {
          clearTimeout(timer);
          child.off("close", finish);
          terminal.exitStatus = { exitCode: code, signal };
          if (!isGroupAlive(pid)) untrackGroup(pid);
          this.logger.debug("terminal exited", { terminalId, pid, code, signal });
          this.emit(this.exitListeners, { sessionId: params.sessionId, terminalId, exitStatus: terminal.exitStatus });
          resolve(terminal.exitStatus);
        };
        const timer = setTimeout(finish, DRAIN_MS);
        child.once("close", finish);
      });
    });
    this.terminalsById.set(terminalId, terminal);
    this.logger.debug("terminal created", { terminalId, pid, argv, cwd });
    return { terminalId };
  }

  /** The output so far (within the byte limit), whether some was dropped, and the exit status once exited. */
  terminalOutput(params: schema.TerminalOutputRequest): schema.TerminalOutputResponse {
    const terminal = this.get(params);
    const response: schema.TerminalOutputResponse = { output: terminal.output.text(terminal.exitStatus !== undefined), truncated: terminal.output.truncated };
    if (terminal.exitStatus !== undefined) response.exitStatus = terminal.exitStatus;
    return response;
  }

  /** Resolves when the command has exited, with its exit code or signal. */
  async waitForTerminalExit(params: schema.WaitForTerminalExitRequest): Promise<schema.WaitForTerminalExitResponse> {
    const status = await this.get(params).exited;
    return { exitCode: status.exitCode ?? null, signal: status.signal ?? null };
  }

  /** Stops the command and its whole process group (SIGTERM, SIGKILL after the grace); the terminal stays. */
  async killTerminal(params: schema.KillTerminalRequest): Promise<schema.KillTerminalResponse> {
    await this.stop(this.get(params));
    return {};
  }

  /** Kills the command if it still runs and forgets the terminal; its id is invalid afterwards. */
  async releaseTerminal(params: schema.ReleaseTerminalRequest): Promise<schema.ReleaseTerminalResponse> {
    const terminal = this.get(params);
    this.terminalsById.delete(terminal.terminalId);
    await this.stop(terminal);
    return {};
  }

  /** Releases every terminal of a session (call it when the session ends). */
  async releaseSession(sessionId: string): Promise<void> {
    const mine = [...this.terminalsById.values()].filter((terminal) => terminal.sessionId === sessionId);
    for (const terminal of mine) this.terminalsById.delete(terminal.terminalId);
    await Promise.all(mine.map((terminal) => this.stop(terminal)));
  }

  /** Releases every terminal (call it when the connection ends). */
  async releaseAll(): Promise<void> {
    const all = [...this.terminalsById.values()];
    this.terminalsById.clear();
    await Promise.all(all.map((terminal) => this.stop(terminal)));
  }

  /** Releases every terminal once `connection.closed` settles (a `ClientSideConnection`, for instance). */
  releaseAllWhenClosed(connection: { readonly closed: Promise<unknown> }): void {
    const release = () => void this.releaseAll();
    connection.closed.then(release, release);
  }

  private async stop(terminal: Terminal): Promise<void> {
    await terminateGroup(terminal.child, this.options.killGraceMs ?? 2000);
    await terminal.exited;
  }

  private get(params: { sessionId: string; terminalId: string }): Terminal {
    const terminal = this.terminalsById.get(params.terminalId);
    if (terminal === undefined || terminal.sessionId !== params.sessionId) {
      throw new RequestError(ErrorCodes.resourceNotFound, `Resource not found: no terminal ${params.terminalId} in session ${params.sessionId}`, {
        terminalId: params.terminalId,
        sessionId: params.sessionId,
      });
    }
    return terminal;
  }

  private emit<E>(listeners: Set<(event: E) => void>, event: E): void {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.error("a terminal listener threw", { error });
      }
    }
  }
}
