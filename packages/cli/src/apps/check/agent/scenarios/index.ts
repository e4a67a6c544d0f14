/** Every `acp check agent` scenario, in the order they run (`initialize` first: it tells what the agent advertises). */
import type { AgentScenario } from "../scenario.js";
import { cancelPendingScenario, cancelRequestScenario, cancelScenario } from "./cancel.js";
import { fsReadScenario, fsWriteScenario, permissionScenario, terminalScenario } from "./client-requests.js";
import { authenticateScenario, authScenario, initializeScenario, versionScenario } from "./initialize.js";
import { streamScenario, turnScenario } from "./prompt.js";
import {
  batchScenario,
  extensionScenario,
  invalidParamsScenario,
  malformedScenario,
  unknownMethodScenario,
} from "./robustness.js";
import {
  closeScenario,
  deleteScenario,
  listPagingScenario,
  listScenario,
  loadScenario,
  newSessionScenario,
  resumeScenario,
} from "./sessions.js";

export const AGENT_SCENARIOS: readonly AgentScenario[] = [
  initializeScenario,
  versionScenario,
  authScenario,
  authenticateScenario,
  newSessionScenario,
  turnScenario,
  streamScenario,
  loadScenario,
  resumeScenario,
  listScenario,
  listPagingScenario,
  closeScenario,
  deleteScenario,
  cancelScenario,
  cancelPendingScenario,
  cancelRequestScenario,
  permissionScenario,
  fsReadScenario,
  fsWriteScenario,
  terminalScenario,
  extensionScenario,
  unknownMethodScenario,
  invalidParamsScenario,
  malformedScenario,
  batchScenario,
];
