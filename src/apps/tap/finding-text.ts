/** How the tap and the recorder report a finding: a few lines for people (stderr), one JSON line for tools (--report). */
import { frameText, type Finding } from "../../wire/index.js";

/** Lines for stderr: what was wrong, the frame, the JSON path and the spec. */
export function findingLines(finding: Finding, tool: string): string {
  const frame = finding.event ? `\n    frame #${finding.event.index} ${finding.event.from}->${finding.event.from === "agent" ? "client" : "agent"}: ${frameText(finding.event, 240)}` : "";
  const path = finding.path ? `\n    at ${finding.path}` : "";
  return `${tool}: ${finding.severity} [${finding.rule}] ${finding.message}${frame}${path}\n    spec: ${finding.spec}\n`;
}

/** One JSON line for a report file. */
export function findingRecord(finding: Finding): string {
  return JSON.stringify({
    time: finding.event?.time ?? Date.now(),
    rule: finding.rule,
    severity: finding.severity,
    side: finding.side,
    message: finding.message,
    spec: finding.spec,
    ...(finding.path ? { path: finding.path } : {}),
    ...(finding.event ? { frame: { index: finding.event.index, from: finding.event.from, text: frameText(finding.event, 2000) } } : {}),
  });
}
