/** The default output of `acp check`: one line per scenario, details under failures, a summary with the figures. */
import { sanitizeTerminalText } from "@acpkit/sdk/client-toolkit";
import { failures, type CheckReport, type ScenarioResult, type Status } from "../results.js";

const LABEL: Record<Status, string> = {
  passed: "PASS ",
  failed: "FAIL ",
  skipped: "SKIP ",
  "not-exercised": "N/E  ",
  "expected-failure": "XFAIL",
  "unexpected-pass": "XPASS",
};

/** Colours for a terminal; identity functions otherwise. */
export interface TablePaint {
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
}

export const plainPaint: TablePaint = { green: (t) => t, red: (t) => t, yellow: (t) => t, dim: (t) => t };

function ms(value: number): string {
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}

function colour(status: Status, paint: TablePaint): (text: string) => string {
  if (status === "passed") return paint.green;
  if (status === "failed" || status === "unexpected-pass") return paint.red;
  if (status === "expected-failure") return paint.yellow;
  return paint.dim;
}

function figures(result: ScenarioResult): string {
  const named: Record<string, string> = { startupMs: "startup", cancelLatencyMs: "cancel latency" };
  return Object.entries(result.measurements)
    .map(([key, value]) => `${named[key] ?? key} ${ms(value)}`)
    .join(", ");
}

/**
 * Renders a report as text lines (each ending with a newline). What the peer said (its name, error messages, frames,
 * all quoted in messages and findings) is shown without terminal control sequences: only `paint` colours.
 */
export function formatTable(report: CheckReport, paint: TablePaint = plainPaint): string {
  const width = Math.max(...report.results.map((r) => r.id.length), 8);
  const lines: string[] = [`acp check ${report.kind}: ${report.command.join(" ")}`];
  if (report.peerInfo && typeof report.peerInfo === "object") {
    const info = report.peerInfo as { name?: unknown; title?: unknown; version?: unknown };
    lines.push(paint.dim(safe(`  ${String(info.title ?? info.name ?? "?")} ${String(info.version ?? "")}`.trimEnd())));
  }
  for (const result of report.results) {
    const figure = figures(result);
    const detail = safe(
      result.status === "passed" ? [result.message, figure].filter(Boolean).join("; ") : (result.message ?? ""),
    );
    lines.push(
      `  ${colour(result.status, paint)(LABEL[result.status])} ${result.id.padEnd(width)}  ` +
        `${result.title}${result.status === "passed" || result.status === "skipped" ? paint.dim(`  ${ms(result.durationMs)}`) : ""}`,
    );
    if (detail && result.status !== "passed") lines.push(`        ${colour(result.status, paint)(indent(detail))}`);
    else if (detail) lines.push(paint.dim(`        ${indent(detail)}`));
    if (result.status === "failed" || result.status === "expected-failure" || result.status === "unexpected-pass") {
      if (result.expectedReason) lines.push(paint.yellow(`        expected to fail: ${result.expectedReason}`));
      lines.push(paint.dim(`        spec: ${result.spec}`));
      for (const finding of result.findings.filter((f) => f.severity === "error").slice(0, 5)) {
        lines.push(`        - [${finding.rule}] ${indent(safe(finding.message), 10)}`);
        if (finding.frame) lines.push(paint.dim(`          frame: ${safe(finding.frame).replace(/[\n\t]/g, " ")}`));
        lines.push(paint.dim(`          spec: ${finding.spec}`));
      }
    }
    for (const warning of result.warnings) lines.push(paint.yellow(`        warning: ${indent(safe(warning), 10)}`));
  }
  const s = report.summary;
  const parts = [
    `${s.passed} passed`,
    `${s.failed} failed`,
    `${s.skipped} skipped`,
    `${s["not-exercised"]} not exercised`,
  ];
  if (s["expected-failure"] > 0) parts.push(`${s["expected-failure"]} expected failures`);
  if (s["unexpected-pass"] > 0) parts.push(`${s["unexpected-pass"]} listed as expected failures but passed`);
  const all = report.results.flatMap((r) => Object.entries(r.measurements));
  const startup = all.find(([k]) => k === "startupMs")?.[1];
  const cancel = all.find(([k]) => k === "cancelLatencyMs")?.[1];
  const extra = [
    startup !== undefined ? `startup ${ms(startup)}` : "",
    cancel !== undefined ? `cancel latency ${ms(cancel)}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  lines.push(
    `${failures(s) > 0 ? paint.red("FAILED") : paint.green("OK")}: ${parts.join(", ")} in ` +
      `${ms(report.durationMs)}${extra ? `; ${extra}` : ""}`,
  );
  return `${lines.join("\n")}\n`;
}

const safe = sanitizeTerminalText;

function indent(text: string, by = 8): string {
  return text.replace(/\n/g, `\n${" ".repeat(by)}`);
}
