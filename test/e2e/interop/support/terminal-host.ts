/**
 * A real terminal host for the test client: `terminal/create` spawns the command with node:child_process (argv,
 * no shell), output is kept within `outputByteLimit` (oldest bytes dropped, at a character boundary), and
 * `release` kills what still runs. Counts what happened so tests can check a terminal's whole life.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type * as acp from "sdk-1.9";

interface Terminal {
  readonly child: ChildProcess;
  output: Buffer;
  truncated: boolean;
  readonly limit: number | undefined;
  exitStatus: acp.TerminalExitStatus | undefined;
  readonly exited: Promise<acp.TerminalExitStatus>;
}

export class TerminalHost {
  private readonly terminals = new Map<string, Terminal>();
  private count = 0;
  readonly log: string[] = [];
  created = 0;
  released = 0;

  /** How many terminals are created and not yet released. */
  get open(): number {
    return this.terminals.size;
  }

  create(params: acp.CreateTerminalRequest): acp.CreateTerminalResponse {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    const child = spawn(params.command, params.args ?? [], {
      cwd: params.cwd ?? undefined,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const limit = params.outputByteLimit ?? undefined;
    const exited = new Promise<acp.TerminalExitStatus>((resolve) => {
      child.once("close", (exitCode, signal) => resolve({ exitCode, signal }));
      child.once("error", (error) => {
        terminal.output = Buffer.concat([terminal.output, Buffer.from(`${error.message}\n`)]);
        resolve({ exitCode: 127, signal: null });
      });
    });
    const terminal: Terminal = {
      child,
      output: Buffer.alloc(0),
      truncated: false,
      limit,
      exitStatus: undefined,
      exited,
    };
    void exited.then((status) => (terminal.exitStatus = status));
    const append = (chunk: Buffer): void => {
      terminal.output = Buffer.concat([terminal.output, chunk]);
      if (terminal.limit !== undefined && terminal.output.length > terminal.limit) {
        let start = terminal.output.length - terminal.limit;
        while (start < terminal.output.length && (terminal.output[start]! & 0xc0) === 0x80) start++;
        terminal.output = terminal.output.subarray(start);
        terminal.truncated = true;
      }
    };
    child.stdout!.on("data", append);
    child.stderr!.on("data", append);
    const terminalId = `term-${++this.count}`;
    this.terminals.set(terminalId, terminal);
    this.created++;
    this.log.push(`create ${terminalId}: ${params.command} ${(params.args ?? []).join(" ")}`);
    return { terminalId };
  }

  output(params: acp.TerminalOutputRequest): acp.TerminalOutputResponse {
    const terminal = this.get(params.terminalId);
    this.log.push(`output ${params.terminalId}`);
    const response: acp.TerminalOutputResponse = {
      output: terminal.output.toString("utf8"),
      truncated: terminal.truncated,
    };
    if (terminal.exitStatus !== undefined) response.exitStatus = terminal.exitStatus;
    return response;
  }

  async waitForExit(params: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse> {
    const status = await this.get(params.terminalId).exited;
    this.log.push(`wait_for_exit ${params.terminalId}`);
    return { exitCode: status.exitCode ?? null, signal: status.signal ?? null };
  }

  kill(params: acp.KillTerminalRequest): acp.KillTerminalResponse {
    this.get(params.terminalId).child.kill("SIGKILL");
    this.log.push(`kill ${params.terminalId}`);
    return {};
  }

  release(params: acp.ReleaseTerminalRequest): acp.ReleaseTerminalResponse {
    const terminal = this.get(params.terminalId);
    if (terminal.exitStatus === undefined) terminal.child.kill("SIGKILL");
    this.terminals.delete(params.terminalId);
    this.released++;
    this.log.push(`release ${params.terminalId}`);
    return {};
  }

  /** Kills every command still running (test cleanup). */
  dispose(): void {
    for (const terminal of this.terminals.values())
      if (terminal.exitStatus === undefined) terminal.child.kill("SIGKILL");
    this.terminals.clear();
  }

  private get(terminalId: string): Terminal {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) throw Object.assign(new Error(`unknown terminal ${terminalId}`), { code: -32002 });
    return terminal;
  }
}
