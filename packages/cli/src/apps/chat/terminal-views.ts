import type * as schema from "@acpkit/sdk";
import type { TerminalView } from "./render-tool.js";

/** How much of a terminal's output the chat keeps for display (its tail), in characters. */
const KEPT_OUTPUT = 64 * 1024;

/**
 * What the chat shows of each terminal the agent created, by terminal id: its session, the tail of its output and
 * how it exited, fed by the terminal host as they change (`onChange` hears which terminal changed).
 */
export class TerminalViews extends Map<string, TerminalView & { sessionId: string }> {
  constructor(private readonly onChange: (terminalId: string) => void = () => {}) {
    super();
  }

  /** The agent created a terminal (`terminal/create` answered). */
  created(sessionId: string, terminalId: string): void {
    this.set(terminalId, { sessionId, output: "", exited: false });
  }

  /** Records live terminal output. */
  output(sessionId: string, terminalId: string, text: string): void {
    const view = this.get(terminalId) ?? { sessionId, output: "", exited: false };
    const output = (view.output + text).slice(-KEPT_OUTPUT);
    this.set(terminalId, { ...view, output });
    this.onChange(terminalId);
  }

  /** Records a terminal's exit. */
  exit(sessionId: string, terminalId: string, status: schema.TerminalExitStatus): void {
    const view = this.get(terminalId) ?? { sessionId, output: "", exited: false };
    this.set(terminalId, {
      ...view,
      exited: true,
      exitCode: status.exitCode ?? null,
      signal: status.signal ?? null,
    });
    this.onChange(terminalId);
  }
}
