/**
 * What a check run produces: one result per scenario, with a status, a message that says what was wrong and what
 * the spec requires, the rule findings of its conversation, warnings and measurements.
 */
import type { Finding } from "@acpkit/sdk/wire";

/**
 * - `passed`: exercised, and everything required held.
 * - `failed`: exercised, and something the spec requires (a MUST) did not hold.
 * - `skipped`: the capability it checks is not advertised (or the scenario was left out with --only/--skip).
 * - `not-exercised`: the peer could not be made to do what the scenario needs; nothing is claimed either way.
 * - `expected-failure`: failed, and listed in --expected-failures with a reason.
 * - `unexpected-pass`: passed although --expected-failures lists it: the list is out of date (fails the run, so a
 *   fixed fault is noticed and its line removed).
 */
export type Status = "passed" | "failed" | "skipped" | "not-exercised" | "expected-failure" | "unexpected-pass";

/** One finding as reported (the frame rendered as text). */
export interface ReportedFinding {
  rule: string;
  severity: "error" | "warning";
  side: "agent" | "client";
  message: string;
  spec: string;
  path?: string;
  /** The frame at fault, as JSON text (cut at 300 characters). */
  frame?: string;
}

export interface ScenarioResult {
  id: string;
  title: string;
  spec: string;
  status: Status;
  /** Why it failed, was skipped or not exercised; or a short note on a pass. */
  message?: string;
  /** SHOULD-level problems and other things worth knowing; never fail a check. */
  warnings: string[];
  findings: ReportedFinding[];
  /** Named figures, e.g. `cancelLatencyMs`, `startupMs`. */
  measurements: Record<string, number>;
  durationMs: number;
  /** For `expected-failure` and `unexpected-pass`: the reason given in the file. */
  expectedReason?: string;
}

export interface CheckReport {
  kind: "agent" | "client";
  /** The command checked. */
  command: readonly string[];
  tool: { name: string; version: string };
  started: string;
  durationMs: number;
  /** What the peer said about itself (agentInfo / clientInfo), when known. */
  peerInfo?: unknown;
  results: ScenarioResult[];
  summary: Record<Status, number>;
}

/** A scenario cannot be exercised: the peer could not be made to do what it needs. */
export class NotExercised extends Error {
  override readonly name = "NotExercised";
}

/** A scenario found a violation of the spec. */
export class CheckFailed extends Error {
  override readonly name = "CheckFailed";
}

/** A scenario is skipped: the capability it checks is not advertised. */
export class Skipped extends Error {
  override readonly name = "Skipped";
}

/** Counts results by status. */
export function summarize(results: readonly ScenarioResult[]): Record<Status, number> {
  const summary: Record<Status, number> = {
    passed: 0,
    failed: 0,
    skipped: 0,
    "not-exercised": 0,
    "expected-failure": 0,
    "unexpected-pass": 0,
  };
  for (const result of results) summary[result.status]++;
  return summary;
}

/** Results that fail a run (exit code 1): failures, and expected failures that passed. */
export function failures(summary: Record<Status, number>): number {
  return summary.failed + (summary["unexpected-pass"] ?? 0);
}

/**
 * Applies `--expected-failures` (id -> reason) to a result: a listed failure becomes `expected-failure`, a listed
 * pass `unexpected-pass`; a listed scenario that was skipped or not exercised keeps its status, with a warning that
 * the list could not be confirmed.
 */
export function applyExpected(
  result: ScenarioResult,
  expected: ReadonlyMap<string, string> | undefined,
): ScenarioResult {
  const reason = expected?.get(result.id);
  if (reason === undefined) return result;
  if (result.status === "failed") return { ...result, status: "expected-failure", expectedReason: reason };
  if (result.status === "passed") {
    const note = result.message ? ` (${result.message})` : "";
    return {
      ...result,
      status: "unexpected-pass",
      message:
        `passed${note}, but --expected-failures lists it as failing ("${reason}"): the fault is fixed; remove ` +
        `its line from the list`,
      expectedReason: reason,
    };
  }
  return {
    ...result,
    warnings: [
      ...result.warnings,
      `--expected-failures lists it as failing ("${reason}"), but it was ` +
        `${result.status === "skipped" ? "skipped" : "not exercised"}: the list was not confirmed`,
    ],
    expectedReason: reason,
  };
}

/** Renders a rule finding for a report. */
export function reportFinding(finding: Finding, frame?: string): ReportedFinding {
  return {
    rule: finding.rule,
    severity: finding.severity,
    side: finding.side,
    message: finding.message,
    spec: finding.spec,
    ...(finding.path ? { path: finding.path } : {}),
    ...(frame !== undefined ? { frame } : {}),
  };
}
