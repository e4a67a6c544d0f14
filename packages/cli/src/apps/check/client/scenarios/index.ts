/** Every `acp check client` scenario, in the order they run. */
import type { ClientScenario } from "../scenario.js";
import { initializeScenario } from "./basics.js";
import { cancelEndTurnScenario } from "./cancel.js";
import { fsOutsideScenario, fsReadScenario, fsWriteScenario } from "./files.js";
import { permissionCancelScenario, permissionScenario } from "./permissions.js";
import { noLeftoverScenario } from "./process.js";
import { crashScenario, largeFrameScenario, nonJsonScenario, slowInitializeScenario } from "./robustness.js";
import { outputLimitScenario, terminalOutsideScenario, terminalScenario } from "./terminals.js";
import { earlyUpdatesScenario, lateUpdatesScenario } from "./updates.js";

export const CLIENT_SCENARIOS: readonly ClientScenario[] = [
  initializeScenario,
  fsReadScenario,
  fsWriteScenario,
  fsOutsideScenario,
  terminalScenario,
  outputLimitScenario,
  terminalOutsideScenario,
  permissionScenario,
  permissionCancelScenario,
  earlyUpdatesScenario,
  lateUpdatesScenario,
  cancelEndTurnScenario,
  largeFrameScenario,
  nonJsonScenario,
  crashScenario,
  slowInitializeScenario,
  noLeftoverScenario,
];
