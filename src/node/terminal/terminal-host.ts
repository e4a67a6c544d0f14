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
 * What it does guarantee (tests: terminal-host.test.ts, terminal-host-limits.test.ts, process-escape.test.ts):
 * - every process the command starts ends with `terminal/kill`, `terminal/release`, `releaseAll` or this process's
 *   exit, even one that left the process group (`setsid`, a double fork): see `process-tree.ts` for how, and where
 *   that stops (a process that both leaves the group and clears its environment, without cgroups; non-Linux);
 * - the output kept is bounded per terminal, per session and for the host (`maxSessionOutputBytes`,
 *   `maxTotalOutputBytes`); once the command exited, its pipes are read for a moment more, then closed, so a
 *   descendant that kept them open is never waited for;
 * - the `gate` (e.g. the client's permission policy, `brokerGate`) decides each command.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { ErrorCodes, RequestError } from "../../jsonrpc/request-error.js";
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import type { HostGate } from "../../client/toolkit/host-gate.js";
import type * as schema from "../../protocol/index.js";
import { closeOutputAfterExit } from "../stdio/child.js";
import { denied, unknownSession } from "../fs/fs-errors.js";
import { OutputBudget } from "./output-budget.js";
import { OutputBuffer } from "./output-buffer.js";
import { confinePath, type RootsProvider } from "../fs/path-confinement.js";
import { terminateGroup, trackTree, untrackTree } from "../process/process-group.js";
import { ProcessTree } from "../process/process-tree.js";
import { spawnInTree } from "../process/spawn-in-tree.js";

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
  /** Output kept when the request gives no `outputByteLimit`, and the most ever kept per terminal. Default 16 MiB. */
  maxOutputBytes?: number;
  /** The most output kept across all terminals of one session (the oldest is dropped first). Default 64 MiB. */
  maxSessionOutputBytes?: number;
  /** The most output kept across all terminals of this host (a connection). Default 256 MiB. */
  maxTotalOutputBytes?: number;
  /**
   * Decides each command once its `cwd` passed confinement: true runs it, false or a reason refuses it (-32602
   * `denied`).
   */
  gate?: HostGate;
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
  tree: ProcessTree;
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
 * "outside_roots"`) or not a directory, a NUL byte or malformed `args`/`env` (`nul_byte`, `bad_args`,
 * `bad_env_name`), a refusal by the gate (`denied`), or a command that could not be started (`data.code`, e.g.
 * ENOENT); -32002 for an unknown terminal (or one of another session) or an unknown session.
 */
export class TerminalHost {
  private readonly options: TerminalHostOptions;
  private readonly logger: Logger;
  private readonly terminalsById = new Map<string, Terminal>();
  private readonly outputListeners = new Set<(event: TerminalOutputEvent) => void>();
  private readonly exitListeners = new Set<(event: TerminalExitEvent) => void>();
  private readonly budget: OutputBudget;

  constructor(options: TerminalHostOptions) {
    this.options = options;
    this.logger = options.logger ?? silentLogger;
    this.budget = new OutputBudget(
      options.maxSessionOutputBytes ?? 64 * 1024 * 1024,
      options.maxTotalOutputBytes ?? 256 * 1024 * 1024,
    );
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
    return [...this.terminalsById.values()].map(({ terminalId, sessionId, pid, argv, cwd, exitStatus }) => ({
      terminalId,
      sessionId,
      pid,
      argv,
      cwd,
      exitStatus,
    }));
  }

  /**
   * Output bytes kept by the terminals of one session, or of all (within `maxSessionOutputBytes`,
   * `maxTotalOutputBytes`).
   */
  outputBytes(sessionId?: string): number {
    return this.budget.bytes(sessionId);
  }

  /**
   * Starts `command args` (no shell) in its own process group and tree, in `cwd` (default: the session's first root).
   */
  async createTerminal(params: schema.CreateTerminalRequest): Promise<schema.CreateTerminalResponse> {
    checkCommand(params);
    const roots = this.options.roots(params.sessionId);
    if (roots === undefined || roots.length === 0) throw unknownSession(params.sessionId, params.cwd);
    const cwd = (await confinePath(params.cwd ?? roots[0]!, roots, "cwd")).real;
    const isDirectory = await stat(cwd).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDirectory)
      throw RequestError.invalidParams(
        { cwd: params.cwd, reason: "not_a_directory" },
        `cwd ${cwd} is not an existing directory`,
      );
    const max = this.options.maxOutputBytes ?? 16 * 1024 * 1024;
    const limit = params.outputByteLimit == null ? max : Math.min(params.outputByteLimit, max);
    if (!Number.isInteger(limit) || limit < 0)
      throw RequestError.invalidParams(
        { outputByteLimit: params.outputByteLimit },
        "outputByteLimit must be a non-negative integer",
      );

    const args = params.args ?? [];
    const access = { kind: "terminal" as const, sessionId: params.sessionId, command: params.command, args, cwd };
    const verdict = this.options.gate === undefined ? true : await this.options.gate(access);
    if (verdict !== true)
      throw denied(
        cwd,
        `run ${JSON.stringify(params.command)} in`,
        typeof verdict === "string" ? verdict : "the client's permission policy refused it",
      );

    const tree = new ProcessTree();
    const env: NodeJS.ProcessEnv = { ...(this.options.env ?? process.env) };
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    const argv = [params.command, ...args];
    let child: ChildProcess;
    try {
      child = spawnInTree(tree, params.command, args, {
        cwd,
        env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        windowsHide: true,
      });
      await new Promise<void>((resolve, reject) => {
        child.once("spawn", resolve);
        child.once("error", reject);
      });
    } catch (error) {
      tree.release();
      const code = (error as NodeJS.ErrnoException).code;
      throw RequestError.invalidParams(
        { command: params.command, code },
        `could not start ${JSON.stringify(params.command)}: ${(error as Error).message}`,
      );
    }
    child.on("error", () => {});
    const pid = child.pid!;
    trackTree(tree);
    const terminalId = `term_${randomUUID()}`;
    const output = new OutputBuffer(limit);
    this.budget.add(params.sessionId, output);
    const terminal: Terminal = {
      terminalId,
      sessionId: params.sessionId,
      pid,
      argv,
      cwd,
      exitStatus: undefined,
      child,
      tree,
      output,
      exited: undefined!,
    };
    for (const name of ["stdout", "stderr"] as const) {
      const decoder = new StringDecoder("utf8");
      const stream = child[name]!;
      stream.on("error", () => {});
      stream.on("data", (chunk: Buffer) => {
        this.budget.append(params.sessionId, output, chunk);
        const text = decoder.write(chunk);
        if (text !== "")
          this.emit(this.outputListeners, { sessionId: params.sessionId, terminalId, stream: name, text });
      });
    }
    terminal.exited = new Promise((resolve) => {
      child.once("exit", (code: number | null, signal: NodeJS.Signals | null) => {
        const finish = () => {
          clearTimeout(timer);
          child.off("close", finish);
          // Output after the command's exit comes from a descendant that kept the pipes: never wait for it.
          closeOutputAfterExit(child, () => tree.alive());
          terminal.exitStatus = { exitCode: code, signal };
          if (!tree.alive()) {
            tree.release();
            untrackTree(tree);
          }
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
    const response: schema.TerminalOutputResponse = {
      output: terminal.output.text({ final: terminal.exitStatus !== undefined }),
      truncated: terminal.output.truncated,
    };
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
    await this.forget(this.get(params));
    return {};
  }

  /** Releases every terminal of a session (call it when the session ends). */
  async releaseSession(sessionId: string): Promise<void> {
    const mine = [...this.terminalsById.values()].filter((terminal) => terminal.sessionId === sessionId);
    await Promise.all(mine.map((terminal) => this.forget(terminal)));
  }

  /** Releases every terminal (call it when the connection ends). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.terminalsById.values()].map((terminal) => this.forget(terminal)));
  }

  /** Releases every terminal once `connection.closed` settles (a `ClientSideConnection`, for instance). */
  releaseAllWhenClosed(connection: { readonly closed: Promise<unknown> }): void {
    const release = () => void this.releaseAll();
    connection.closed.then(release, release);
  }

  private async stop(terminal: Terminal): Promise<void> {
    await terminateGroup(terminal.child, this.options.killGraceMs ?? 2000, terminal.tree);
    await terminal.exited;
  }

  /** Forgets a terminal: stops it and frees its share of the output budget. */
  private async forget(terminal: Terminal): Promise<void> {
    this.terminalsById.delete(terminal.terminalId);
    await this.stop(terminal);
    this.budget.release(terminal.output);
  }

  private get(params: { sessionId: string; terminalId: string }): Terminal {
    const terminal = this.terminalsById.get(params.terminalId);
    if (terminal === undefined || terminal.sessionId !== params.sessionId) {
      throw new RequestError(
        ErrorCodes.resourceNotFound,
        `Resource not found: no terminal ${params.terminalId} in session ${params.sessionId}`,
        {
          terminalId: params.terminalId,
          sessionId: params.sessionId,
        },
      );
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

/** Checks the request's command, args and env before anything runs: -32602 with a reason, never a spawn crash. */
function checkCommand(params: schema.CreateTerminalRequest): void {
  const invalid = (reason: string, message: string) =>
    new RequestError(ErrorCodes.invalidParams, `Invalid params: ${message}`, { command: params.command, reason });
  if (typeof params.command !== "string" || params.command === "")
    throw invalid("bad_command", "command must be a non-empty string");
  if (params.command.includes("\0")) throw invalid("nul_byte", "command contains a NUL byte");
  if (params.args != null && (!Array.isArray(params.args) || params.args.some((arg) => typeof arg !== "string")))
    throw invalid("bad_args", "args must be an array of strings");
  if (params.args?.some((arg) => arg.includes("\0"))) throw invalid("nul_byte", "an argument contains a NUL byte");
  if (params.cwd != null && typeof params.cwd === "string" && params.cwd.includes("\0"))
    throw invalid("nul_byte", "cwd contains a NUL byte");
  for (const variable of params.env ?? []) {
    if (
      typeof variable?.name !== "string" ||
      variable.name === "" ||
      variable.name.includes("=") ||
      variable.name.includes("\0")
    ) {
      throw invalid(
        "bad_env_name",
        `environment variable names must be non-empty and hold no "=" or NUL, got ${JSON.stringify(variable?.name)}`,
      );
    }
    if (typeof variable.value !== "string")
      throw invalid("bad_env_value", `the value of ${variable.name} must be a string`);
    if (variable.value.includes("\0")) throw invalid("nul_byte", `the value of ${variable.name} contains a NUL byte`);
  }
}
