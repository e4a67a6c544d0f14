/** Scenario ids the `acp check client` e2e tests expect, shared by its test files. */

/** Exercised on every client that advertises fs and terminals and grants what the checks ask for. */
export const ALWAYS_EXERCISED = [
  "initialize",
  "fs.read",
  "fs.write",
  "fs.outside-roots",
  "terminal.lifecycle",
  "terminal.output-limit",
  "terminal.outside-roots",
  "permission.options",
  "updates.early",
  "updates.late",
  "cancel.end-turn",
  "robust.large-frame",
  "robust.non-json",
  "robust.crash-mid-frame",
  "robust.slow-initialize",
  "process.no-leftover",
];

/** The checks whose scripted agent asks the client's permission before the access (see ask-first.ts). */
export const ASKS_PERMISSION_FIRST = ["fs.write", "terminal.lifecycle", "terminal.output-limit"];
