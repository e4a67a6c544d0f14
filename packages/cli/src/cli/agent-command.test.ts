import assert from "node:assert/strict";
import { test } from "node:test";
import { maskUrlPasswords, parseAgentFlags } from "./agent-command.js";

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

test("acp agent --store: a postgres:// URL (or $ACP_STORE); anything else refused without echoing it", () => {
  const url = "postgres://acp:s3cret@db.example:5432/sessions";
  assert.equal(parseAgentFlags(["--store", url], {}).store, url);
  assert.equal(
    parseAgentFlags([`--store=${url.replace("postgres:", "postgresql:")}`], {}).store,
    url.replace("postgres:", "postgresql:"),
  );
  assert.equal(parseAgentFlags([], { ACP_STORE: url }).store, url);
  assert.equal(
    parseAgentFlags(["--store", "postgres://h/db"], { ACP_STORE: url }).store,
    "postgres://h/db",
    "the flag wins",
  );
  assert.equal(parseAgentFlags([], { ACP_STORE: "" }).store, undefined);
  assert.equal(parseAgentFlags(["--store-wait", "0"], {}).storeWaitMs, 0);
  assert.equal(parseAgentFlags(["--store-wait=2500"], {}).storeWaitMs, 2500);
  assert.throws(() => parseAgentFlags(["--store-wait", "soon"], {}), /--store-wait must be 0 or a positive number/);
  assert.equal(parseAgentFlags(["--store-lease", "3000"], {}).storeLeaseMs, 3000);
  assert.equal(parseAgentFlags([], { ACP_STORE_LEASE: "2500" }).storeLeaseMs, 2500);
  assert.equal(parseAgentFlags([], {}).storeLeaseMs, undefined);
  assert.throws(() => parseAgentFlags(["--store-lease", "50"], {}), /--store-lease .* 200 or more/);
  for (const [argv, env] of [
    [["--store", "mysql://acp:s3cret@db/x"], {}],
    [["--store=host=db password=s3cret"], {}],
    [[], { ACP_STORE: "/var/lib/s3cret" }],
  ] as const) {
    assert.throws(
      () => parseAgentFlags(argv, env),
      (error: Error) =>
        /must be a postgres:\/\/ or postgresql:\/\/ URL/.test(error.message) && !error.message.includes("s3cret"),
    );
  }
  assert.throws(
    () => parseAgentFlags(["--stroe=postgres://acp:s3cret@db/x"], {}),
    (error: Error) => error.message === 'unknown argument "--stroe=postgres://acp:***@db/x"',
  );
  assert.equal(maskUrlPasswords("a postgresql://u:p%40ss@h/db b"), "a postgresql://u:***@h/db b");
  assert.equal(maskUrlPasswords("postgres://u@h/db"), "postgres://u@h/db");
});
