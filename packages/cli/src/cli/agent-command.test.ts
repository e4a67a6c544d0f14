import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAgentFlags } from "./agent-command.js";

test("acp agent flags: both spellings, model from flags and environment, errors for bad input", () => {
  assert.deepEqual(parseAgentFlags(["--data-dir", "/d", "--run-timeout=500", "--log-level", "debug"], {}), {
    dataDir: "/d",
    runTimeoutMs: 500,
    logLevel: "debug",
  });
  assert.deepEqual(parseAgentFlags(["--unstable", "--data-dir", "/d"], {}), { unstable: true, dataDir: "/d" });
  assert.deepEqual(parseAgentFlags(["--model-url=http://h/v1", "--model", "m"], { ACP_MODEL_KEY: "k" }).model, {
    url: "http://h/v1",
    model: "m",
    key: "k",
  });
  assert.deepEqual(parseAgentFlags([], { ACP_MODEL_URL: "", ACP_MODEL: "" }), {});
  assert.throws(() => parseAgentFlags(["--nope"], {}), /unknown argument/);
  assert.throws(() => parseAgentFlags(["--data-dir"], {}), /needs a value/);
  assert.throws(() => parseAgentFlags(["--run-timeout", "-1"], {}), /positive/);
  assert.equal(parseAgentFlags(["--grep-time-limit=250"], {}).grepTimeLimitMs, 250);
  assert.throws(
    () => parseAgentFlags(["--grep-time-limit", "soon"], {}),
    /--grep-time-limit must be a positive number of milliseconds/,
  );
  assert.throws(() => parseAgentFlags([], { ACP_LOG: "loud" }), /unknown log level/);
});
