import assert from "node:assert/strict";
import { test } from "node:test";
import { parseExecArgs, UsageError } from "./exec-args.js";

test("flags as --flag value and --flag=value; defaults", () => {
  const args = parseExecArgs([
    "--agent",
    "my-agent --acp",
    "--cwd=/w",
    "--format=ndjson",
    "--timeout",
    "2.5",
    "--mcp",
    "a=/bin/a",
    "--mcp=b=http://b",
    "--permissions",
    "rules:r.json",
    "--verbose",
    "fix it",
  ]);
  assert.equal(args.agent, "my-agent --acp");
  assert.equal(args.cwd, "/w");
  assert.equal(args.format, "ndjson");
  assert.equal(args.timeoutMs, 2500);
  assert.deepEqual(args.mcp, ["a=/bin/a", "b=http://b"]);
  assert.deepEqual(args.permissions, { rulesFile: "r.json" });
  assert.equal(args.verbose, true);
  assert.equal(args.prompt, "fix it");
  const defaults = parseExecArgs(["-"]);
  assert.deepEqual(
    [
      defaults.prompt,
      defaults.format,
      defaults.timeoutMs,
      defaults.startupTimeoutMs,
      defaults.permissions,
      defaults.resume,
    ],
    ["-", "text", 1_800_000, 30_000, undefined, false],
  );
  assert.equal(parseExecArgs(["--startup-timeout=90", "x"]).startupTimeoutMs, 90_000);
  assert.equal(parseExecArgs(["--", "--not-a-flag"]).prompt, "--not-a-flag");
  assert.equal(parseExecArgs(["--logout"]).prompt, undefined);
  assert.equal(parseExecArgs(["-h"]).help, true);
});

test("errors name the flag and say what to do", () => {
  const fails = (argv: string[], pattern: RegExp) =>
    assert.throws(
      () => parseExecArgs(argv),
      (error) => error instanceof UsageError && pattern.test(error.message),
    );
  fails(["--agent"], /^--agent needs a value: the agent's command line, quoted/);
  fails(["--cwd=", "x"], /^--cwd needs a non-empty value/);
  fails(["--format", "yaml", "x"], /^--format must be one of text, json, ndjson; got "yaml"/);
  fails(["--timeout", "-1", "x"], /^--timeout takes a positive number of seconds/);
  fails(
    ["--startup-timeout", "0", "x"],
    /^--startup-timeout takes a positive number of seconds, e\.g\. --startup-timeout 10; got "0"/,
  );
  fails(
    ["--permissions", "maybe", "x"],
    /^--permissions must be one of allow-all, deny-all, allow-reads, ask or rules:FILE\.json/,
  );
  fails(["--permissions", "rules:", "x"], /needs a file/);
  fails(["--mcp", "noequals", "x"], /^--mcp expects NAME=COMMAND or NAME=URL/);
  fails(["--resume=yes", "x"], /^--resume takes no value/);
  fails(["--nope", "x"], /^unknown option --nope\. Run "acp exec --help"/);
  fails(["a", "b"], /expected one prompt, got 2 arguments; quote the prompt: acp exec "a b"/);
  fails([], /^no prompt given/);
  fails(["  "], /the prompt is empty/);
  fails(["--session", "s", "--resume", "x"], /exclude each other/);
});

test("--agent: another URL scheme says which work; a flag after a value flag is not swallowed as its value", () => {
  assert.throws(
    () => parseExecArgs(["--agent", "ftp://host/acp", "hi"]),
    (error: Error) =>
      error instanceof UsageError &&
      /--agent ftp:\/\/host\/acp: ftp:\/\/ is not a way to reach an agent\. Give the URL of a remote agent \(http:\/\/, https:\/\/, ws:\/\/ or wss:\/\/\) or the command line of a local one/.test(
        error.message,
      ),
  );
  assert.throws(
    () => parseExecArgs(["--agent", "--verbose", "hi"]),
    (error: Error) =>
      error instanceof UsageError &&
      /--agent needs a value, but --verbose follows it, which is an option/.test(error.message),
  );
  assert.throws(() => parseExecArgs(["--agent", "", "hi"]), /--agent needs a non-empty value/);
  assert.equal(parseExecArgs(["--agent", "wss://host/acp", "hi"]).agent, "wss://host/acp");
  assert.equal(parseExecArgs(["--agent", "npx -y my-agent", "hi"]).agent, "npx -y my-agent");
});
