/**
 * One run of the client under `acp check client`: a socket on 127.0.0.1 for the relay, the client command with
 * `{agent}` replaced by the relay's command line, started in its own process group in a fresh directory, its
 * stdout and stderr captured. When the client starts "its agent" (the relay), the relay connects and the scripted
 * agent takes over the conversation in this process.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  childExited,
  isProcessAlive,
  signalGroup,
  terminateGroup,
  trackGroup,
  untrackGroup,
  waitUntil,
  type ExitStatus,
} from "@acpkit/sdk/node";
import { StderrTail } from "@acpkit/sdk/node";
import { ScriptPeer, WireChecker } from "@acpkit/sdk/wire";
import { CheckFailed } from "../results.js";
import { ScriptedAgent, type ScriptedAgentOptions } from "./scripted-agent.js";

export interface ClientTarget {
  command: readonly string[];
  /** Written to the client's stdin at the start. */
  stdin?: string;
  cancelSignal: NodeJS.Signals;
  startupTimeoutMs: number;
  turnTimeoutMs: number;
  version: string;
}

/** How the relay (the client's "agent") behaves. */
export interface RelayBehaviour {
  /** Ignore end of input: keep running until signalled. */
  linger?: boolean;
  /** Exit code when the checker closes the connection (a crash). */
  exitCode?: number;
}

const RELAY = fileURLToPath(new URL("./relay-main.js", import.meta.url));

/** Quotes one word for `splitCommandLine` (and a POSIX shell). */
export function quoteWord(word: string): string {
  return /^[A-Za-z0-9_\-./:=@%+,]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * The client runs in a fresh directory: words of its command that name an existing file or directory relative to
 * this process's cwd (`dist/cli.js`, `./client`) are made absolute, so the command works as typed.
 */
export function absoluteWords(command: readonly string[], cwd = process.cwd()): string[] {
  return command.map((word) =>
    !word.includes("{agent") &&
    /^\.{0,2}\/|^[^-/][^\s]*\//.test(word) &&
    !isAbsolute(word) &&
    existsSync(resolve(cwd, word))
      ? resolve(cwd, word)
      : word,
  );
}

/** The client command with `{agent}` (one argument: the command line) or `{agent-argv}` (the words) filled in. */
export function substituteAgent(command: readonly string[], agentArgv: readonly string[]): string[] {
  const line = agentArgv.map(quoteWord).join(" ");
  return command.flatMap((part) => (part === "{agent-argv}" ? [...agentArgv] : [part.split("{agent}").join(line)]));
}

export class ClientRun {
  readonly child: ChildProcess;
  readonly exited: Promise<ExitStatus>;
  stdout = "";
  readonly stderr = new StderrTail({ maxLines: 30 });
  /** Spawn time (performance.now()). */
  readonly startedAt = performance.now();
  /** The scripted agent, once the client started the relay. */
  agent: ScriptedAgent | undefined;
  relayPid: number | undefined;
  connectedAt: number | undefined;
  private socket: Socket | undefined;
  private readonly connected: Promise<ScriptedAgent>;
  private exitStatus: ExitStatus | undefined;

  private constructor(
    readonly target: ClientTarget,
    readonly argv: string[],
    private readonly server: Server,
    cwd: string,
    agentOptions: ScriptedAgentOptions,
  ) {
    this.connected = new Promise((resolve) => {
      server.on("connection", (socket) => {
        if (this.socket) {
          socket.destroy(); // one agent per scenario
          return;
        }
        this.socket = socket;
        this.attach(socket, agentOptions, resolve);
      });
    });
    this.child = spawn(argv[0]!, argv.slice(1), {
      cwd,
      detached: process.platform !== "win32",
      stdio: ["pipe", "pipe", "pipe"],
      env: process.env,
    });
    this.child.on("error", () => {});
    if (this.child.pid !== undefined) trackGroup(this.child.pid);
    this.child.stdout!.setEncoding("utf8").on("data", (text: string) => (this.stdout += text));
    this.child.stderr!.on("data", (chunk: Buffer) => this.stderr.push(chunk));
    this.child.stdin!.on("error", () => {});
    if (target.stdin !== undefined) this.child.stdin!.write(target.stdin.replace(/\\n/g, "\n").replace(/\n?$/, "\n"));
    this.exited = childExited(this.child).then((status) => (this.exitStatus = status));
  }

  /** Starts the client for one scenario. */
  static async start(
    target: ClientTarget,
    cwd: string,
    relay: RelayBehaviour,
    agentOptions: ScriptedAgentOptions,
  ): Promise<ClientRun> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const port = (server.address() as { port: number }).port;
    const relayArgv = [
      process.execPath,
      RELAY,
      String(port),
      ...(relay.linger ? ["--linger"] : []),
      ...(relay.exitCode !== undefined ? ["--exit-code", String(relay.exitCode)] : []),
    ];
    return new ClientRun(target, substituteAgent(absoluteWords(target.command), relayArgv), server, cwd, agentOptions);
  }

  /** The scripted agent, once the client started it; fails the scenario if it does not within the startup timeout. */
  async waitForAgent(): Promise<ScriptedAgent> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(
          () =>
            reject(
              new CheckFailed(
                `the client did not start its agent (the {agent} command) within ` +
                  `${Math.round(this.target.startupTimeoutMs / 1000)} s; ${this.describeClient()}`,
              ),
            ),
          this.target.startupTimeoutMs,
        )),
    );
    const exited = this.exited.then((status) => {
      throw new CheckFailed(
        `the client exited (${describeExit(status)}) without starting its agent; ${this.describeClient()}`,
      );
    });
    try {
      return await Promise.race([this.connected, timeout, exited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the client's stdin (a headless chat leaves at end of input). */
  closeStdin(): void {
    if (!this.child.stdin!.writableEnded) this.child.stdin!.end();
  }

  /** Sends a signal to the client process (not its group: the client decides what its agent gets). */
  signal(signal: NodeJS.Signals): void {
    if (this.exitStatus === undefined && this.child.pid !== undefined) this.child.kill(signal);
  }

  /** The client's exit status once it exits within `ms`, else undefined. */
  async exitWithin(ms: number): Promise<ExitStatus | undefined> {
    if (this.exitStatus) return this.exitStatus;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const result = await Promise.race([
      this.exited,
      new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined))),
    ]);
    clearTimeout(timer);
    return result;
  }

  get exit(): ExitStatus | undefined {
    return this.exitStatus;
  }

  /** True when the relay is still running `ms` after now (it should end with its client). */
  async relayOutlives(ms: number): Promise<boolean> {
    const pid = this.relayPid;
    if (pid === undefined) return false;
    return !(await waitUntil(() => !isProcessAlive(pid), ms, 20));
  }

  /** The connection to the relay ends (the agent went away, or crashed when `crash` is set: half a frame first). */
  closeAgent(): void {
    this.socket?.end();
  }

  /** Stops everything this run started: the client's group, the relay, the socket. */
  async dispose(): Promise<void> {
    this.socket?.destroy();
    this.server.close();
    if (this.child.pid !== undefined) {
      if (this.exitStatus === undefined) await terminateGroup(this.child, 2000);
      else if (process.platform !== "win32") signalGroup(this.child.pid, "SIGKILL");
      untrackGroup(this.child.pid);
    }
    if (this.relayPid !== undefined && isProcessAlive(this.relayPid)) {
      try {
        process.kill(this.relayPid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
    this.agent?.peer.receiveEnd();
  }

  /** The client's command, exit status and last stderr lines, for messages. */
  describeClient(): string {
    const lines = this.stderr.lines();
    return `its stderr ${
      lines.length === 0
        ? "was empty"
        : `ended with:\n${lines
            .slice(-8)
            .map((l) => `  | ${l}`)
            .join("\n")}`
    }`;
  }

  private attach(socket: Socket, options: ScriptedAgentOptions, resolve: (agent: ScriptedAgent) => void): void {
    let hello = "";
    let peer: ScriptPeer | undefined;
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => {
      if (peer) {
        peer.receive(chunk);
        return;
      }
      hello += chunk.toString("latin1");
      const newline = hello.indexOf("\n");
      if (newline === -1) return;
      const match = /^ACPKIT-RELAY (\d+)$/.exec(hello.slice(0, newline));
      this.relayPid = match ? Number(match[1]) : undefined;
      this.connectedAt = performance.now();
      peer = new ScriptPeer({
        side: "agent",
        write: (text) => void (socket.writable && socket.write(text)),
        checker: new WireChecker({ judge: ["client"] }),
      });
      socket.once("end", () => peer!.receiveEnd());
      socket.once("close", () => peer!.receiveEnd());
      this.agent = new ScriptedAgent(peer, options);
      resolve(this.agent);
      const rest = Buffer.from(hello.slice(newline + 1), "latin1");
      if (rest.length > 0) peer.receive(rest);
    });
  }
}

export function describeExit(status: ExitStatus): string {
  return status.signal !== null ? `killed by ${status.signal}` : `exit code ${status.code}`;
}
