/**
 * `acp serve` as a user meets it: what it prints, and its mistakes (exit 2 with a message that says what to do).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { startExec } from "../exec/support.js";
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

/** `acp exec` against a served agent; its exit code and stderr. */
function execAgainst(url: string, ...args: string[]): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [ACP_MAIN, "exec", "--agent", url, ...args, "hi"], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr };
}

test(
  "a wrong token: acp exec says HTTP 401 once, what to check, and to pass --token or set ACP_TOKEN; " +
    "the WebSocket refusal does not fall back",
  { timeout: 120_000 },
  async () => {
    const serve = await startServe(["--agent", `${JSON.stringify(process.execPath)} -e 0`]);
    try {
      const hint = /Pass --token or set ACP_TOKEN \(acp serve printed the token when it started\)\.\n$/;
      const http = execAgainst(serve.url, "--profile", "http", "--token", "wrong");
      assert.equal(http.status, 3, http.stderr);
      assert.match(http.stderr, /answered initialize with HTTP 401 Unauthorized: the bearer token is not valid/);
      assert.doesNotMatch(http.stderr, /Unauthorized: Unauthorized|\.\./, "no word or period said twice");
      assert.match(http.stderr, hint);
      const auto = execAgainst(serve.url, "--token", "wrong");
      assert.equal(auto.status, 3, auto.stderr);
      assert.match(auto.stderr, /refused the WebSocket upgrade with HTTP 401\. Check the token and headers\./);
      assert.match(auto.stderr, hint);
    } finally {
      await serve.stop();
    }
  },
);

test(
  "an agent that dies before initialize: the server logs its exit and last stderr lines without --verbose; " +
    "the client says the agent failed to start (HTTP 502)",
  { timeout: 120_000 },
  async () => {
    const script = 'process.stderr.write("my-agent: OPENAI_API_KEY is not set\\n"); process.exit(3)';
    const dying = `${JSON.stringify(process.execPath)} -e ${JSON.stringify(script)}`;
    const serve = await startServe(["--agent", dying]);
    try {
      const token = ["--token", serve.token!];
      const http = execAgainst(serve.url, "--profile", "http", ...token);
      assert.equal(http.status, 3, http.stderr);
      assert.match(
        http.stderr,
        /acp exec: HTTP 502 Bad Gateway: the agent failed to start: it ended before answering initialize; the server's log has its exit status and last stderr lines/,
      );
      const ws = execAgainst(serve.url, ...token);
      assert.equal(ws.status, 3, ws.stderr);
      assert.match(ws.stderr, /acp exec: the agent failed to start: it ended before answering initialize/);
      await serve.waitForStderr(
        /an agent process ended by itself .*"exit":"code 3","stderr":\["my-agent: OPENAI_API_KEY is not set"\]/,
      );
    } finally {
      await serve.stop();
    }
  },
);

for (const profile of ["websocket", "http"] as const)
  test(
    `acp serve shutting down mid-turn (${profile}): acp exec says the server went away (exit 1), not a Ctrl-C (130)`,
    { timeout: 120_000 },
    async () => {
      const serve = await startServe([]);
      const exec = startExec([
        "--agent",
        serve.url,
        "--profile",
        profile,
        "--token",
        serve.token!,
        "--verbose",
        "/slow 60000",
      ]);
      try {
        await exec.waitFor("session", "stderr", 60_000);
        assert.deepEqual(await serve.stop(), { code: 0, signal: null });
        const done = await exec.done;
        assert.equal(done.code, 1, done.stderr);
        // The server cancels the turn, then closes: whichever the client sees first, it says so.
        assert.match(
          done.stderr,
          /acp exec: (the agent ended the turn as cancelled, which this run did not ask for \(a remote server cancels its running turns when it shuts down|the agent failed the turn: .*(the server is shutting down|HTTP 503|closed))/,
        );
        assert.doesNotMatch(done.stderr, /\.\./, "no doubled period");
      } finally {
        exec.child.kill("SIGKILL");
        await serve.stop();
      }
    },
  );
