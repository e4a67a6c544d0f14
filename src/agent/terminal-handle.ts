import type { SendRequestOptions } from "../jsonrpc/index.js";
import type {
  KillTerminalResponse,
  ReleaseTerminalResponse,
  TerminalOutputResponse,
  WaitForTerminalExitResponse,
} from "../protocol/index.js";
import type { AcpConnection } from "../acp/acp-connection.js";
import { ACP_CONNECTION } from "../acp/connect.js";

/**
 * A terminal the client runs for the agent (`terminal/create`): read its output, wait for its exit, kill the
 * command, release it.
 *
 * Always release a terminal when done (`release()`, or `await using` which releases on scope exit): the client
 * keeps it, and its output, until then. After `release()` the id is invalid for every other terminal method;
 * tool calls that embed the terminal keep showing its output. Every call needs the client's `terminal`
 * capability, which `createTerminal` already required.
 * See https://agentclientprotocol.com/protocol/terminals
 */
export class TerminalHandle {
  /** @internal Use `createTerminalHandle`, or get one from `createTerminal`. */
  constructor(
    /** Terminal identifier returned by `terminal/create`. */
    readonly id: string,
    private readonly sessionId: string,
    private readonly connection: AcpConnection,
  ) {}

  /** The connection this terminal belongs to (for acpkit toolkits). */
  get [ACP_CONNECTION](): AcpConnection {
    return this.connection;
  }

  /** Gets the output so far (`terminal/output`), without waiting for the command to exit. */
  currentOutput(options?: SendRequestOptions): Promise<TerminalOutputResponse> {
    return this.connection.request("terminal/output", this.ids(), options);
  }

  /** Waits for the command to exit (`terminal/wait_for_exit`) and returns its exit status. */
  waitForExit(options?: SendRequestOptions): Promise<WaitForTerminalExitResponse> {
    return this.connection.request("terminal/wait_for_exit", this.ids(), options);
  }

  /**
   * Kills the command (`terminal/kill`) without releasing the terminal: its output and exit status stay
   * readable until `release()`. Use it for timeouts and cancellation.
   */
  kill(options?: SendRequestOptions): Promise<KillTerminalResponse> {
    return this.connection.request("terminal/kill", this.ids(), options);
  }

  /** Releases the terminal (`terminal/release`), killing the command if it still runs. Call it exactly once. */
  release(options?: SendRequestOptions): Promise<ReleaseTerminalResponse | void> {
    return this.connection.request("terminal/release", this.ids(), options);
  }

  /** Releases the terminal at the end of an `await using` scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.release();
  }

  private ids(): { sessionId: string; terminalId: string } {
    return { sessionId: this.sessionId, terminalId: this.id };
  }
}

/** Wraps a terminal the client created (`terminal/create` answered `terminalId`) in a handle. */
export function createTerminalHandle(connection: AcpConnection, sessionId: string, terminalId: string): TerminalHandle {
  return new TerminalHandle(terminalId, sessionId, connection);
}
