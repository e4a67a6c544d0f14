/**
 * Any stdio agent behind a remote server: one process per client connection, started with `launchAgent` (its own
 * process group, no shell, no orphans), its stdin/stdout relayed to the connection, and stopped (stdin closed, then
 * SIGTERM, then SIGKILL to its group) when the connection ends. Backpressure is carried to the process: while the
 * client is behind, the agent's stdout is not read; while the agent's stdin is full, client messages are held.
 * Each agent's environment carries `ACPKIT_CONNECTION_LABEL`: the first 8 characters of its connection's id, as the
 * server's logs show it (not the whole id, which routes requests), so that an operator or a test can tell from the
 * process list (`/proc/<pid>/environ`) which connection an agent serves.
 *
 * Spec: https://agentclientprotocol.com/protocol/transports (stdio) and
 * https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import type { LinkReceiver, MessageLink, Stream } from "../../jsonrpc/link.js";
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import type { AnyMessage } from "../../jsonrpc/messages.js";
import { linkFromStream } from "../../transports/stream-link.js";
import { remoteAgentControl, type AgentConnector } from "../../acp/agent-connector.js";
import type { ExitStatus } from "../process/process-group.js";
import { launchAgent, type LaunchAgentOptions, type LaunchedAgent } from "../process/agent-launcher.js";

/** Options of `stdioAgentConnector`: how to launch the agent (`command` or `argv`, cwd, env, grace periods). */
export interface StdioAgentConnectorOptions extends Omit<LaunchAgentOptions, "logger" | "onStderrLine"> {
  /** Hears about each agent's life. Default: silent. */
  logger?: Logger;
  /** Each agent's stderr lines, with the connection they belong to. Never printed by the library. */
  onStderrLine?: (line: string, connectionId: string | undefined) => void;
  /** Called when an agent process started or stopped (for logs and tests). */
  onProcess?: (event: {
    type: "started" | "stopped";
    pid: number;
    connectionId: string | undefined;
    status?: ExitStatus;
  }) => void;
}

/** The environment variable that labels each agent process with its connection (see the file's comment). */
export const CONNECTION_LABEL_ENV = "ACPKIT_CONNECTION_LABEL";

/** A connection's label: the first 8 characters of its id, as logs show it. */
export function connectionLabel(connectionId: string): string {
  return connectionId.slice(0, 8);
}

/** A stdio connector, and the agents it is running now. */
export interface StdioAgentConnector extends AgentConnector {
  /** The processes of connections still open. */
  readonly running: ReadonlySet<LaunchedAgent>;
  /** SIGKILLs every running agent's process tree at once (a second SIGTERM to a server that is stopping). */
  killAll(): Promise<void>;
}

/** A connector that launches `options.command` (or `argv`) for each connection. */
export function stdioAgentConnector(options: StdioAgentConnectorOptions): StdioAgentConnector {
  const running = new Set<LaunchedAgent>();
  const { logger = silentLogger, onStderrLine, onProcess, ...launch } = options;
  return {
    running,
    killAll: async () => {
      await Promise.all([...running].map((agent) => agent.kill()));
    },
    connect(stream: Stream) {
      const relay = new ProcessRelay(stream, logger);
      const connectionId = remoteAgentControl(stream)?.connectionId;
      const closed = (async () => {
        let agent: LaunchedAgent;
        try {
          agent = await launchAgent({
            ...launch,
            ...(connectionId === undefined
              ? {}
              : { extraEnv: { ...launch.extraEnv, [CONNECTION_LABEL_ENV]: connectionLabel(connectionId) } }),
            logger,
            onStderrLine: onStderrLine && ((line) => onStderrLine(line, connectionId)),
          });
        } catch (error) {
          logger.warn("could not start the agent for a remote connection", {
            connectionId,
            error: (error as Error).message,
          });
          relay.fail();
          return;
        }
        running.add(agent);
        onProcess?.({ type: "started", pid: agent.pid, connectionId });
        try {
          await relay.run(agent);
        } finally {
          const status = await agent.stop();
          running.delete(agent);
          // An agent that went away by itself (a crash, a missing key at startup) is logged with its last words,
          // whatever else is logged: its clients only learn that it ended.
          if (relay.endedBy === "agent")
            logger.warn("an agent process ended by itself", {
              connectionId,
              exit: status.signal === null ? `code ${status.code}` : `signal ${status.signal}`,
              stderr: agent.stderrTail().slice(-5),
            });
          onProcess?.({ type: "stopped", pid: agent.pid, connectionId, status });
        }
      })();
      return { closed };
    },
  };
}

/** Relays messages between a server connection's stream and an agent process, until either side ends. */
class ProcessRelay {
  readonly #server: MessageLink;
  readonly #control: ReturnType<typeof remoteAgentControl>;
  #ended = false;
  /** Which side ended the relay first. */
  endedBy: "client" | "agent" | undefined;
  #endServer!: () => void;
  readonly #serverEnded = new Promise<void>((resolve) => (this.#endServer = resolve));

  constructor(
    stream: Stream,
    private readonly logger: Logger,
  ) {
    this.#server = linkFromStream(stream);
    this.#control = remoteAgentControl(stream);
  }

  /** The agent could not be started: the connection's output ends, so its client learns of it. */
  fail(): void {
    void this.#server.close();
  }

  /** Relays until the connection or the process ends; then closes the other side. */
  async run(agent: LaunchedAgent): Promise<void> {
    const child = linkFromStream(agent.stream);
    const stdout = agent.child.stdout!;
    const fromClient: LinkReceiver = {
      // Ids a JS number cannot hold travel as their exact text both ways (`rawId`), as over stdio.
      message: (value, rawId) => {
        child.send(value as AnyMessage, rawId);
        // The agent's stdin is full: hold client messages until it drains.
        const control = this.#control;
        if (control && agent.child.stdin!.writableNeedDrain) {
          control.pauseInput();
          void child.drain().then(() => control.resumeInput());
        }
      },
      problem: () => {},
      closed: () => this.#finish("client"),
    };
    const fromAgent: LinkReceiver = {
      message: (value, rawId) => {
        try {
          this.#server.send(value as AnyMessage, rawId);
        } catch (error) {
          this.logger.warn("dropped a message from the agent that the connection refused", {
            error: (error as Error).message,
          });
          return;
        }
        // The client is behind: stop reading the agent's stdout until it catches up (the agent's writes then block).
        if (this.#control?.outputBacklogged() && !stdout.isPaused()) {
          stdout.pause();
          void this.#server.drain().then(() => {
            if (!this.#ended) stdout.resume();
          });
        }
      },
      problem: (problem) => {
        if (problem.kind === "too_large")
          this.logger.warn("the agent wrote a line over the size limit; it was skipped", { bytes: problem.bytes });
        else if (problem.kind === "parse" && !problem.looksLikeJson)
          this.logger.debug("the agent wrote a line that is not JSON on stdout", { preview: problem.preview });
        else if (problem.kind === "lost")
          this.logger.warn("a message from the agent was lost", { detail: problem.detail });
      },
      closed: () => this.#finish("agent"),
    };
    this.#server.start(fromClient);
    child.start(fromAgent);
    await this.#serverEnded;
    await child.close().catch(() => {});
  }

  #finish(by: "client" | "agent"): void {
    if (this.#ended) return;
    this.#ended = true;
    this.endedBy = by;
    void this.#server.close();
    this.#endServer();
  }
}
