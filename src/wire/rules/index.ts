/** Every conformance rule, in the order their findings are listed. */
import { capabilityRule, initializeFirstRule } from "./capability-rules.js";
import { cancelPendingPermissionRule, cancelStopReasonRule } from "./cancel-rules.js";
import { messageRule, methodRule, responseRule } from "./jsonrpc-rules.js";
import { absolutePathRule, withinRootsRule } from "./path-rules.js";
import { schemaRule } from "./schema-rule.js";
import { terminalReleaseRule } from "./terminal-rules.js";
import { loadReplayRule, resumeNoReplayRule, updateAfterResponseRule } from "./turn-rules.js";
import type { Rule } from "./types.js";

export const ALL_RULES: readonly Rule[] = Object.freeze([
  messageRule,
  responseRule,
  methodRule,
  schemaRule,
  initializeFirstRule,
  capabilityRule,
  updateAfterResponseRule,
  loadReplayRule,
  resumeNoReplayRule,
  cancelStopReasonRule,
  cancelPendingPermissionRule,
  absolutePathRule,
  withinRootsRule,
  terminalReleaseRule,
]);

export type { Finding, Rule, RuleContext, RuleState, Severity } from "./types.js";
export { CANCEL_RACE_MS } from "./cancel-rules.js";
