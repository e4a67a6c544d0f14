/**
 * `node/terminal/`: the client's terminal host (`terminal/create`, `output`, `wait_for_exit`, `kill`, `release`):
 * each command in its own process group, its working directory inside the session's roots, its output kept within
 * the per-terminal limit and the per-session and per-host budgets.
 *
 * Safety contract: a terminal's processes end when it is killed or released, or when the host closes; output never
 * grows past the budgets (tests: terminal-host.test.ts, terminal-host-limits.test.ts, output-buffer.test.ts).
 */
export { OutputBuffer } from "./output-buffer.js";
export {
  TerminalHost,
  type TerminalHostOptions,
  type TerminalInfo,
  type TerminalOutputEvent,
  type TerminalExitEvent,
} from "./terminal-host.js";
