/**
 * `acp serve` as a user meets it: what it prints, and its mistakes (exit 2 with a message that says what to do).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { ACP_MAIN, startServe } from "./support/serve-process.js";

function serveOnce(args: string[]): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [ACP_MAIN, "serve", ...args], { encoding: "utf8", timeout: 30_000 });
  return { status: result.status, stderr: result.stderr };
}

test(
  "mistakes exit 2 before serving: an agent that cannot run, a bad flag, a port in use",
  { timeout: 60_000 },
  async () => {
    const missing = serveOnce(["--port", "0", "--agent", "no-such-agent-for-acpkit"]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /cannot run "no-such-agent-for-acpkit": not found on PATH/);
    const flag = serveOnce(["--max-connections", "0"]);
    assert.equal(flag.status, 2);
    assert.match(flag.stderr, /--max-connections must be a positive whole number/);
    const first = await startServe(["--agent", `${JSON.stringify(process.execPath)} -e 0`]);
    try {
      const port = new URL(first.url).port;
      const taken = serveOnce(["--port", port, "--agent", `${JSON.stringify(process.execPath)} -e 0`]);
      assert.equal(taken.status, 2);
      assert.match(taken.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use`));
    } finally {
      await first.stop();
    }
  },
);

test(
  "it prints the URL and the generated token on stdout, and with --token it prints none",
  { timeout: 60_000 },
  async () => {
    const generated = await startServe(["--agent", `${JSON.stringify(process.execPath)} -e 0`]);
    try {
      assert.match(generated.url, /^http:\/\/127\.0\.0\.1:\d+\/acp$/);
      assert.match(generated.webSocketUrl, /^ws:\/\/127\.0\.0\.1:\d+\/acp$/);
      assert.match(generated.token ?? "", /^[A-Za-z0-9_-]{43}$/);
      await generated.waitForStderr(/bearer token required/);
    } finally {
      assert.deepEqual(await generated.stop(), { code: 0, signal: null });
    }
    const given = await startServe(["--agent", `${JSON.stringify(process.execPath)} -e 0`], {
      ACP_TOKEN: "from-the-environment",
    });
    try {
      assert.equal(given.token, undefined, "a token the user gave is not printed");
      const refused = await fetch(given.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      assert.equal(refused.status, 401);
    } finally {
      assert.deepEqual(await given.stop(), { code: 0, signal: null });
    }
  },
);

/** POSTs `initialize` with no Authorization header; the status and the connection id. */
async function initializeWithoutToken(url: string): Promise<{ status: number; connectionId: string | null }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    }),
  });
  await response.arrayBuffer();
  return { status: response.status, connectionId: response.headers.get("acp-connection-id") };
}

test(
  "--insecure-no-token on every interface is refused (exit 2, nothing served) unless --allow-insecure is given too",
  { timeout: 60_000 },
  () => {
    for (const host of ["0.0.0.0", "::"]) {
      const result = spawnSync(
        process.execPath,
        [ACP_MAIN, "serve", "--port", "0", "--host", host, "--insecure-no-token"],
        { encoding: "utf8", timeout: 30_000 },
      );
      assert.equal(result.status, 2, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(
          `acp serve: refusing to serve ${host.replaceAll(".", "\\.")} without a token: .*add --allow-insecure`,
        ),
      );
      assert.equal(result.stdout, "", "no URL printed: it never listened");
    }
  },
);

test(
  "--insecure-no-token --allow-insecure on every interface serves without a token, with a loud warning",
  { timeout: 60_000 },
  async () => {
    const serve = await startServe(["--host", "0.0.0.0", "--insecure-no-token", "--allow-insecure"]);
    try {
      assert.equal(serve.token, undefined);
      await serve.waitForStderr(/without a token: anyone who can reach it can run the agent/);
      await serve.waitForStderr(/WITHOUT a token/);
      // Really served without a token: an initialize with no Authorization header opens a connection.
      const port = new URL(serve.url).port;
      const opened = await initializeWithoutToken(`http://127.0.0.1:${port}/acp`);
      assert.equal(opened.status, 200);
      assert.ok(opened.connectionId);
    } finally {
      assert.deepEqual(await serve.stop(), { code: 0, signal: null });
    }
  },
);

test(
  "--insecure-no-token alone on loopback serves without a token, and a token-less request is then accepted",
  { timeout: 60_000 },
  async () => {
    const serve = await startServe(["--insecure-no-token"]);
    try {
      assert.equal(serve.token, undefined);
      await serve.waitForStderr(/WITHOUT a token/);
      assert.doesNotMatch(serve.stderr(), /anyone who can reach it/, "no network warning on loopback");
      const opened = await initializeWithoutToken(serve.url);
      assert.equal(opened.status, 200);
    } finally {
      assert.deepEqual(await serve.stop(), { code: 0, signal: null });
    }
  },
);
