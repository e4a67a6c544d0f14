/**
 * Which lines of an agent's stderr `acp exec` shows without `--verbose`: what acpkit's own tools standing in for
 * the agent print for the user (`acp tap` and `acp record` findings, `acp replay` divergences). Each is a first line
 * `acp tap: ...` (`acp record: ...`, `acp replay: ...`) followed by indented continuation lines (the frame, the
 * JSON path, the spec). The agent's own log stays behind `--verbose`.
 */
const TOOL_LINE = /^acp (?:tap|record|replay)(?: --as (?:agent|client))?: /;

/** Decides line by line, in order (a continuation line is shown when the line it continues was). */
export class ToolLines {
  #inFinding = false;

  /** True for a line of a tool's finding or divergence. */
  shows(line: string): boolean {
    if (TOOL_LINE.test(line)) return (this.#inFinding = true);
    if (this.#inFinding && /^\s+\S/.test(line)) return true;
    return (this.#inFinding = false);
  }
}
