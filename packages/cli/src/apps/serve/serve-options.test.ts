import assert from "node:assert/strict";
import { test } from "node:test";
import { parseServeArgs, SERVE_USAGE } from "./serve-options.js";

test("defaults: loopback, port 8765, /acp, a token from $ACP_TOKEN or none (then generated)", () => {
  const options = parseServeArgs([], {});
  assert.equal(options.host, "127.0.0.1");
  assert.equal(options.port, 8765);
  assert.equal(options.path, "/acp");
  assert.equal(options.token, undefined);
  assert.equal(parseServeArgs([], { ACP_TOKEN: "from-env" }).token, "from-env");
  assert.equal(parseServeArgs(["--token", "flag"], { ACP_TOKEN: "from-env" }).token, "flag");
});

test("every flag, in both spellings", () => {
  const options = parseServeArgs(
    [
      "--agent",
      "my-agent --stdio",
      "--host=0.0.0.0",
      "--port",
      "0",
      "--cert",
      "c.pem",
      "--key=k.pem",
      "--allow-origin",
      "https://a.example",
      "--allow-origin",
      "https://b.example",
      "--allow-host",
      "agents.example",
      "--max-connections",
      "8",
      "--idle-timeout",
      "1000",
      "--max-body-bytes",
      "1024",
      "--grace",
      "0",
      "--http1",
      "--verbose",
      "--path",
      "/x",
    ],
    {},
  );
  assert.equal(options.agent, "my-agent --stdio");
  assert.equal(options.host, "0.0.0.0");
  assert.equal(options.port, 0);
  assert.deepEqual([options.cert, options.key], ["c.pem", "k.pem"]);
  assert.deepEqual(options.allowOrigins, ["https://a.example", "https://b.example"]);
  assert.deepEqual(options.allowHosts, ["agents.example"]);
  assert.deepEqual(
    [options.maxConnections, options.idleTimeoutMs, options.maxBodyBytes, options.graceMs],
    [8, 1000, 1024, 0],
  );
  assert.equal(options.http1, true);
  assert.equal(options.verbose, true);
  assert.equal(options.path, "/x");
  assert.equal(parseServeArgs(["--allow-origin", "any"], {}).allowOrigins, "any");
});

test("mistakes name the flag and say what to do", () => {
  const fails = (argv: string[], pattern: RegExp) => assert.throws(() => parseServeArgs(argv, {}), pattern);
  fails(["--nope"], /unknown argument "--nope"/);
  fails(["--port"], /--port needs a value/);
  fails(["--port", "70000"], /at most 65535/);
  fails(["--port", "x"], /whole number/);
  fails(["--cert", "c.pem"], /--cert and --key go together/);
  fails(["--h2c", "--cert", "c", "--key", "k"], /--h2c is for cleartext/);
  fails(["--http1"], /only makes sense with --cert/);
  fails(["--insecure-no-token", "--token", "t"], /contradict/);
  fails(["--path", "acp"], /must start with/);
  fails(["--verbose=yes"], /takes no value/);
  fails(["--agent", " "], /needs a command line/);
});

test("a value flag never swallows the next option: --token --verbose is not a token named --verbose", () => {
  const fails = (argv: string[], pattern: RegExp) => assert.throws(() => parseServeArgs(argv, {}), pattern);
  fails(["--token", "--verbose"], /--token needs a value, but --verbose follows it, which is an option/);
  fails(["--agent", "--port", "0"], /--agent needs a value, but --port follows it/);
  fails(["--token-file", "--host=0.0.0.0"], /--token-file needs a value, but --host=0\.0\.0\.0 follows it/);
  // A value that only looks like an option is given with "=", or is not one of acp serve's options.
  assert.equal(parseServeArgs(["--token=--verbose"], {}).token, "--verbose");
  assert.equal(parseServeArgs(["--agent", "my-agent --stdio"], {}).agent, "my-agent --stdio");
  assert.equal(parseServeArgs(["--token", "--not-an-option"], {}).token, "--not-an-option");
});

test("no token on a non-loopback host needs --allow-insecure as well; on loopback --insecure-no-token alone is enough", () => {
  for (const host of ["0.0.0.0", "::", "192.168.1.10", "agents.example"]) {
    assert.throws(
      () => parseServeArgs(["--host", host, "--insecure-no-token"], {}),
      new RegExp(`refusing to serve ${host.replace(/\./g, "\\.")} without a token.*--allow-insecure`),
    );
    const allowed = parseServeArgs(["--host", host, "--insecure-no-token", "--allow-insecure"], {});
    assert.deepEqual([allowed.insecureNoToken, allowed.allowInsecure], [true, true]);
  }
  for (const host of ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"]) {
    assert.equal(parseServeArgs(["--host", host, "--insecure-no-token"], {}).insecureNoToken, true, host);
  }
  assert.throws(() => parseServeArgs(["--allow-insecure"], {}), /--allow-insecure only goes with --insecure-no-token/);
  assert.throws(
    () => parseServeArgs(["--host", "0.0.0.0", "--allow-insecure"], {}),
    /--allow-insecure only goes with --insecure-no-token/,
  );
  // A token from the environment and --insecure-no-token still contradict, whatever the host.
  assert.throws(
    () => parseServeArgs(["--host", "0.0.0.0", "--insecure-no-token", "--allow-insecure"], { ACP_TOKEN: "t" }),
    /contradict/,
  );
});

test("hardening flags: --token-file, the admission limits, the stdio MCP policy", () => {
  const options = parseServeArgs(
    [
      "--token-file",
      "/run/secrets/acp",
      "--body-timeout",
      "5000",
      "--headers-timeout=2000",
      "--max-unauthenticated",
      "32",
      "--max-unauthenticated-per-address",
      "8",
      "--refuse-stdio-mcp",
    ],
    { ACP_TOKEN: "from-env" },
  );
  assert.equal(options.tokenFile, "/run/secrets/acp");
  assert.equal(options.token, undefined, "the file wins over $ACP_TOKEN");
  assert.deepEqual(
    [options.bodyTimeoutMs, options.headersTimeoutMs, options.maxUnauthenticated, options.maxUnauthenticatedPerAddress],
    [5000, 2000, 32, 8],
  );
  assert.equal(options.stdioMcp, "refuse");
  assert.equal(parseServeArgs(["--allow-stdio-mcp"], {}).stdioMcp, "allow");
  assert.equal(parseServeArgs([], {}).stdioMcp, undefined, "decided by the host: allowed on loopback only");
});

test("no silent unsafe switch: origins or hosts 'any' need a token; token sources do not mix", () => {
  const fails = (argv: string[], pattern: RegExp, env: Record<string, string> = {}) =>
    assert.throws(() => parseServeArgs(argv, env), pattern);
  fails(["--insecure-no-token", "--allow-origin", "any"], /refusing --allow-origin any without a token/);
  fails(["--insecure-no-token", "--allow-host", "any"], /refusing --allow-host any without a token.*DNS rebinding/);
  fails(["--token", "t", "--token-file", "f"], /--token and --token-file contradict/);
  fails(["--insecure-no-token", "--token-file", "f"], /contradict/);
  fails(["--allow-stdio-mcp", "--refuse-stdio-mcp"], /contradict/);
  fails(["--body-timeout", "0"], /--body-timeout must be a positive whole number/);
  assert.equal(
    parseServeArgs(["--allow-origin", "any"], {}).allowOrigins,
    "any",
    "with a token (generated) it is allowed",
  );
});

test("--help says that --token on the command line is visible to every user", () => {
  assert.match(SERVE_USAGE, /--token TOKEN .*every user of this machine sees it \(ps\)/s);
  assert.match(SERVE_USAGE, /--token-file FILE/);
});

test("--cluster: a PostgreSQL URL (or $ACP_CLUSTER), with --lease, --node-name and --drain only beside it", () => {
  const url = "postgres://acp:secret@db.internal:5432/acp";
  const options = parseServeArgs(["--cluster", url, "--lease", "4000", "--node-name", "web-1", "--drain", "0"], {});
  assert.deepEqual(
    { cluster: options.cluster, leaseMs: options.leaseMs, nodeName: options.nodeName, drainMs: options.drainMs },
    { cluster: url, leaseMs: 4000, nodeName: "web-1", drainMs: 0 },
  );
  assert.equal(parseServeArgs([], { ACP_CLUSTER: url }).cluster, url);
  assert.equal(parseServeArgs([], {}).cluster, undefined);
  assert.throws(() => parseServeArgs(["--cluster", "mysql://x"], {}), /--cluster needs a PostgreSQL URL/);
  assert.throws(() => parseServeArgs(["--lease", "4000"], {}), /only go with --cluster/);
  assert.throws(() => parseServeArgs(["--cluster", url, "--lease", "100"], {}), /at least 200 ms/);
  assert.throws(() => parseServeArgs(["--cluster", url, "--node-name", "a b"], {}), /--node-name takes/);
});
