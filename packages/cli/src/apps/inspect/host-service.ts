/**
 * The client-side methods an agent calls on the page's client (`fs/*`, `terminal/*`), served on the inspector's
 * machine: the page forwards each call over the feed and passes the answer (or the wire error) back to the agent.
 * Files and commands are confined to the inspector's working directory (the `cwd` of every session the page
 * creates), exactly as `acp exec` and `acp chat` confine theirs; permission is asked by the agent (the page answers
 * its `session/request_permission`), not here. Each lane has its own terminals, all released when the lane ends.
 * Live terminal output goes to every page (`terminal-output`), so a tool call's terminal fills as it runs.
 */
import { FileSystemHost, TerminalHost } from "@acpkit/sdk/node";
import { RequestError } from "@acpkit/sdk";
import type { HostError, ServerMessage } from "./feed-protocol.js";

export class HostService {
  readonly #fs: FileSystemHost;
  readonly #terminals = new Map<number, TerminalHost>();
  readonly #roots: () => string[];

  constructor(
    cwd: string,
    private readonly broadcast: (message: ServerMessage) => void,
  ) {
    this.#roots = () => [cwd];
    this.#fs = new FileSystemHost({ roots: this.#roots });
  }

  /** Serves one call; resolves with its result or its wire error. */
  async call(lane: number, method: string, params: unknown): Promise<{ result?: unknown; error?: HostError }> {
    try {
      return { result: await this.#dispatch(lane, method, params as never) };
    } catch (error) {
      if (error instanceof RequestError) {
        return {
          error: {
            code: error.code,
            message: error.message,
            ...(error.data !== undefined ? { data: error.data } : {}),
          },
        };
      }
      return { error: { code: -32603, message: (error as Error).message ?? String(error) } };
    }
  }

  async #dispatch(lane: number, method: string, params: never): Promise<unknown> {
    switch (method) {
      case "fs/read_text_file":
        return this.#fs.readTextFile(params);
      case "fs/write_text_file":
        return this.#fs.writeTextFile(params);
      case "terminal/create":
        return this.#terminal(lane).createTerminal(params);
      case "terminal/output":
        return this.#terminal(lane).terminalOutput(params);
      case "terminal/wait_for_exit":
        return this.#terminal(lane).waitForTerminalExit(params);
      case "terminal/kill":
        return this.#terminal(lane).killTerminal(params);
      case "terminal/release":
        return this.#terminal(lane).releaseTerminal(params);
      default:
        throw RequestError.methodNotFound(method);
    }
  }

  #terminal(lane: number): TerminalHost {
    let host = this.#terminals.get(lane);
    if (!host) {
      host = new TerminalHost({
        roots: this.#roots,
        onOutput: (event) =>
          this.broadcast({
            type: "terminal-output",
            terminalId: event.terminalId,
            stream: event.stream,
            text: event.text,
          }),
        onExit: (event) =>
          this.broadcast({ type: "terminal-exit", terminalId: event.terminalId, exitStatus: event.exitStatus }),
      });
      this.#terminals.set(lane, host);
    }
    return host;
  }

  /** The lane ended: its commands still running are killed. */
  async laneClosed(lane: number): Promise<void> {
    const host = this.#terminals.get(lane);
    this.#terminals.delete(lane);
    await host?.releaseAll();
  }

  async close(): Promise<void> {
    await Promise.all([...this.#terminals.keys()].map((lane) => this.laneClosed(lane)));
  }
}
