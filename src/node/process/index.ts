/**
 * `node/process/`: the processes acpkit starts, and their ends. The agent launcher (`launchAgent`: a stdio agent in
 * its own process group and process tree, its stderr's tail kept, `initialize` under a deadline), process groups
 * and trees (a group, an environment tag, a cgroup v2 where one can be made), the orphan guard, and the command-line
 * splitter that never involves a shell.
 *
 * Safety contract: every process we start, and everything it starts, ends when its owner ends it or goes away
 * (tests: process-escape.test.ts, process-group.test.ts, agent-launcher.test.ts; bench/launch-soak.ts).
 */
export {
  launchAgent,
  initializeWithDeadline,
  AgentSpawnError,
  AgentStartupTimeoutError,
  type LaunchAgentOptions,
  type LaunchedAgent,
  type Initializer,
  type InitializeDeadlineOptions,
} from "./agent-launcher.js";
export { splitCommandLine } from "./command-line.js";
export { StderrTail, type StderrTailOptions } from "./stderr-tail.js";
export {
  signalGroup,
  isGroupAlive,
  isProcessAlive,
  terminateGroup,
  setOrphanWatchdog,
  type ExitStatus,
  childExited,
  trackGroup,
  untrackGroup,
  waitUntil,
} from "./process-group.js";
export { ProcessTree, setCgroupContainment, TREE_ENV } from "./process-tree.js";
