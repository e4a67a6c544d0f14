/**
 * How the tap and the recorder report a finding: a few lines for people (stderr), one JSON line for tools (--report).
 * A finding quotes what a peer sent (a line that is not JSON, a method name, a frame): on stderr that text is shown
 * without its terminal control sequences, so a peer cannot set the title, write the clipboard or rewrite the screen
 * of whoever watches; the report keeps it exactly, as JSON with every control character escaped.
 */
import { sanitizeTerminalText, terminalSafeJson } from "@acpkit/sdk/client-toolkit";
import { frameText, type Finding } from "@acpkit/sdk/wire";

/** Lines for stderr: what was wrong, the frame, the JSON path and the spec (peer text without control sequences). */
export function findingLines(finding: Finding, tool: string): string {
  const frame = finding.event
    ? `\n    frame ` +
      `#${finding.event.index} ${finding.event.from}->${finding.event.from === "agent" ? "client" : "agent"}: ` +
      `${oneLine(frameText(finding.event, 240))}`
    : "";
  const path = finding.path ? `\n    at ${sanitizeTerminalText(finding.path)}` : "";
  return (
    `${tool}: ${finding.severity} [${finding.rule}] ${sanitizeTerminalText(finding.message)}${frame}${path}\n   ` +
    ` spec: ${finding.spec}\n`
  );
}

/** Peer text for one line of a report: control sequences removed, and a newline or tab shown as a space. */
function oneLine(text: string): string {
  return sanitizeTerminalText(text).replace(/[\n\t]/g, " ");
}

/** One JSON line for a report file. */
export function findingRecord(finding: Finding): string {
  return terminalSafeJson({
    time: finding.event?.time ?? Date.now(),
    rule: finding.rule,
    severity: finding.severity,
    side: finding.side,
    message: finding.message,
    spec: finding.spec,
    ...(finding.path ? { path: finding.path } : {}),
    ...(finding.event
      ? { frame: { index: finding.event.index, from: finding.event.from, text: frameText(finding.event, 2000) } }
      : {}),
  });
}
