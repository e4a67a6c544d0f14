/**
 * The tap's analyzer: a low-priority process beside `acp tap` that gets a copy of the traffic (see
 * tee-protocol.ts), checks every frame with the rule engine, reports findings (stderr, which it shares with the
 * tap, or the report file) and writes the cassette. Keeping this work out of the tap's process and at a low
 * priority is what lets the tap forward bytes without measurable delay; findings still come within moments.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { openCassetteFile } from "@acpkit/sdk/node";
import { CassetteRecorder, WireChecker, WireObserver, type Finding } from "@acpkit/sdk/wire";
import { findingLines, findingRecord } from "./finding-text.js";
import { KIND, RecordReader, type AnalyzerOptions } from "./tee-protocol.js";

let options: AnalyzerOptions | undefined;
let observer: WireObserver | undefined;
let checker: WireChecker | undefined;
let recorder: CassetteRecorder | undefined;
let trace: ReturnType<typeof openCassetteFile> | undefined;
let reportFd: number | undefined;
let head = "";

const report = (finding: Finding) => {
  if (reportFd !== undefined) writeSync(reportFd, `${findingRecord(finding)}\n`);
  else if (!options!.quiet) process.stderr.write(findingLines(finding, options!.tool.name));
};

const reader = new RecordReader((kind, bytes) => {
  if (kind === KIND.client || kind === KIND.agent) observer!.bytes(kind === KIND.client ? "client" : "agent", bytes);
  else observer!.end(kind === KIND.endClient ? "client" : "agent");
  trace?.flush();
});

function start(line: string): void {
  options = JSON.parse(line) as AnalyzerOptions;
  if (options.tracePath !== undefined) trace = openCassetteFile(options.tracePath, { batch: true });
  if (options.reportPath !== undefined) reportFd = openSync(options.reportPath, "a");
  recorder = trace ? new CassetteRecorder(trace.sink, { tool: options.tool, agent: options.argv }) : undefined;
  checker = new WireChecker({ onFinding: report });
  observer = new WireObserver({ checker, ...(recorder ? { recorder } : {}) });
}

// Ctrl-C in a terminal reaches the whole foreground group: the analyzer finishes its work when the tap closes its
// input.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => {});

process.stdin.on("data", (chunk: Buffer) => {
  if (observer) return reader.push(chunk);
  head += chunk.toString("latin1");
  const newline = head.indexOf("\n");
  if (newline === -1) return;
  start(Buffer.from(head.slice(0, newline), "latin1").toString("utf8"));
  const rest = Buffer.from(head.slice(newline + 1), "latin1");
  if (rest.length > 0) reader.push(rest);
});
process.stdin.once("end", () => {
  checker?.end();
  recorder?.close();
  trace?.close();
  if (reportFd !== undefined) closeSync(reportFd);
  process.exit(0);
});
