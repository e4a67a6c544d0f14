import assert from "node:assert/strict";
import { test } from "node:test";
import { ExitCode, exitCodeFor, exitCodeForSignal } from "./exit-codes.js";

test("exit codes by stop reason", () => {
  assert.deepEqual(
    ["end_turn", "refusal", "max_tokens", "max_turn_requests", "cancelled", "something_new"].map(exitCodeFor),
    [
      ExitCode.endTurn,
      ExitCode.refusal,
      ExitCode.maxTokens,
      ExitCode.maxTurnRequests,
      ExitCode.cancelled,
      ExitCode.agentError,
    ],
  );
  assert.deepEqual(Object.values(ExitCode), [0, 1, 2, 3, 4, 5, 6, 7, 124, 129, 130, 143]);
  assert.deepEqual(
    (["SIGINT", "SIGTERM", "SIGHUP", undefined] as const).map(exitCodeForSignal),
    [130, 143, 129, 130],
    "a signal's exit code is what a shell reports for it (128 + its number); Ctrl-C stays 130",
  );
});
