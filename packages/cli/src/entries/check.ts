/**
 * `@acpkit/cli/check`: the conformance checker of `acp check agent` as a library: run its scenarios against an agent
 * command and get the report (what `--format json` prints).
 */
export { runAgentCheck, type AgentCheckOptions, type AgentCheckOutcome } from "../apps/check/agent/run-agent-check.js";
export { DEFAULT_PROMPTS, PromptBook, readPromptBook } from "../apps/check/agent/prompts.js";
export type { CheckReport, ReportedFinding, ScenarioResult, Status } from "../apps/check/results.js";
