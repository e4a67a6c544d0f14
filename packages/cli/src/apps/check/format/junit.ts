/** `--format junit`: JUnit XML, one test case per scenario, for CI systems that show test reports. */
import { failures as failureCount, type CheckReport } from "../results.js";

/**
 * Text as XML character data or attribute value. C0 controls XML 1.0 forbids even escaped are dropped; a carriage
 * return, DEL and the C1 controls (allowed, but a terminal showing the file would act on them: U+009B is an 8-bit
 * CSI) are written as character references, so the report keeps them and a parser gets them back.
 */
function xml(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- XML 1.0 forbids these characters even escaped
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/[\r\u007f-\u009f]/g, (char) => `&#x${char.charCodeAt(0).toString(16)};`)
  );
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

export function formatJunit(report: CheckReport): string {
  const s = report.summary;
  const tests = report.results.length;
  const failures = failureCount(s);
  const skipped = s.skipped + s["not-exercised"] + s["expected-failure"];
  const name = `acp check ${report.kind}`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(name)}" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}" ` +
      `time="${seconds(report.durationMs)}">`,
    `  <testsuite name="${xml(`${name}: ${report.command.join(" ")}`)}" tests="${tests}" ` +
      `failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(report.durationMs)}" ` +
      `timestamp="${xml(report.started)}">`,
  ];
  for (const result of report.results) {
    lines.push(
      `    <testcase classname="acp.check.${report.kind}" name="${xml(`${result.id}: ${result.title}`)}" ` +
        `time="${seconds(result.durationMs)}">`,
    );
    if (result.status === "failed" || result.status === "unexpected-pass") {
      const details = [
        result.message ?? "",
        `spec: ${result.spec}`,
        ...result.findings.map(
          (f) => `[${f.rule}] ${f.message}${f.frame ? `\n  frame: ${f.frame}` : ""}\n  spec: ${f.spec}`,
        ),
      ].join("\n");
      lines.push(
        `      <failure message="${xml(result.message ?? "failed")}" ` +
          `type="${xml(result.status === "unexpected-pass" ? "unexpected-pass" : (result.findings[0]?.rule ?? result.id))}">${xml(details)}</failure>`,
      );
    } else if (result.status !== "passed") {
      const why =
        result.status === "expected-failure"
          ? `expected failure (${result.expectedReason}): ${result.message ?? ""}`
          : `${result.status}: ${result.message ?? ""}`;
      lines.push(`      <skipped message="${xml(why)}"/>`);
    }
    const out = [
      ...result.warnings.map((w) => `warning: ${w}`),
      ...Object.entries(result.measurements).map(([k, v]) => `${k}: ${Math.round(v)}`),
    ];
    if (result.status === "passed" && result.message) out.unshift(result.message);
    if (out.length > 0) lines.push(`      <system-out>${xml(out.join("\n"))}</system-out>`);
    lines.push("    </testcase>");
  }
  lines.push("  </testsuite>", "</testsuites>");
  return `${lines.join("\n")}\n`;
}
