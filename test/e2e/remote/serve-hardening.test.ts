/**
 * `acp serve` has no silent unsafe switch and keeps its secret: origins or hosts `any` without a token are refused,
 * every switch that weakens a default is noted on stderr at start, the token comes from a file or the environment
 * and never reaches an agent's environment (nor `ps` after start), client-named stdio MCP servers (commands run on the
 * server) are refused when asked, and a second SIGTERM kills the agents at once.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { fixturePath } from "../interop/support/spawn.js";
import { openRawSse, postJson } from "./support/raw-http.js";
import { ACP_MAIN, fixtureAgentCommand, startServe, waitForExit } from "./support/serve-process.js";

const STEP = { timeout: 60_000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let work: string;
before(() => void (work = makeTempDir("acp-serve-hardening-")));
after(() => removeTempDir(work));

function serveOnce(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [ACP_MAIN, "serve", "--port", "0", ...args], {
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** initialize, then session/new with `mcpServers`, over Streamable HTTP; the answer to session/new. */
async function newSession(url: string, token: string | undefined, mcpServers: unknown[]): Promise<any> {
  const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const init = await postJson(url, auth, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: 1, clientCapabilities: {} },
  });
  assert.equal(init.status, 200, init.text);
  const connection = { ...auth, "acp-connection-id": init.headers.get("acp-connection-id")! };
  const stream = await openRawSse(url, connection);
  try {
    const posted = await postJson(url, connection, {
      jsonrpc: "2.0",
      id: 1,
      method: "session/new",
      params: { cwd: work, mcpServers },
    });
    assert.equal(posted.status, 202, posted.text);
    return await stream.until((event) => event.id === 1);
  } finally {
    stream.cut();
  }
}

describe("acp serve: no silent unsafe switch", () => {
  it("--allow-origin any or --allow-host any without a token: exit 2, nothing served", STEP, () => {
    for (const flags of [
      ["--insecure-no-token", "--allow-origin", "any"],
      ["--insecure-no-token", "--allow-host", "any"],
    ]) {
      const result = serveOnce(flags);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, /refusing --allow-(origin|host) any without a token/);
      assert.equal(result.stdout, "", "it never listened");
    }
  });

  it("each switch that weakens a default is noted on stderr at start, saying what it exposes", STEP, async () => {
    const serve = await startServe([
      "--insecure-no-token",
      "--allow-origin",
      "https://app.example",
      "--allow-host",
      "agents.example",
      "--agent",
      fixtureAgentCommand(),
    ]);
    try {
      await serve.waitForStderr(/note: --insecure-no-token: no token; any process or user of this machine/);
      await serve.waitForStderr(
        /note: --allow-origin: pages of https:\/\/app\.example can call this server, without a token/,
      );
      await serve.waitForStderr(/note: --allow-host: also answering to agents\.example/);
    } finally {
      assert.deepEqual(await serve.stop(), { code: 0, signal: null });
    }
    const quiet = await startServe(["--agent", fixtureAgentCommand()]);
    try {
      await quiet.waitForStderr(/bearer token required/);
      assert.doesNotMatch(quiet.stderr(), /note:/, "the defaults need no note");
    } finally {
      assert.deepEqual(await quiet.stop(), { code: 0, signal: null });
    }
    const guessable = await startServe(["--agent", fixtureAgentCommand()], { ACP_TOKEN: "hunter2" });
    try {
      await guessable.waitForStderr(/note: the token has 7 characters: one that short can be guessed by whoever can/);
    } finally {
      assert.deepEqual(await guessable.stop(), { code: 0, signal: null });
    }
  });
});

describe("acp serve: the token stays with the server", () => {
  it("from $ACP_TOKEN: it is not in any agent's environment", STEP, async () => {
    const envFile = join(work, "agent-env.txt");
    const agent = `sh -c 'env > "${envFile}"; exec "${process.execPath}" "${fixturePath("interop-agent-app")}" --impl=acpkit'`;
    const secret = "secret-from-the-environment-1234";
    const serve = await startServe(["--agent", agent], { ACP_TOKEN: secret, OTHER_COPY: secret });
    try {
      await newSession(serve.url, secret, []);
      const env = readFileSync(envFile, "utf8");
      assert.doesNotMatch(env, /ACP_TOKEN=/);
      assert.ok(!env.includes(secret), "no variable holds the token");
      assert.match(env, /^PATH=/m, "the rest of the environment is there");
    } finally {
      assert.deepEqual(await serve.stop(), { code: 0, signal: null });
    }
  });

  it("from --token-file: used, and a file others may read is noted", STEP, async () => {
    const file = join(work, "token");
    writeFileSync(file, "token-from-a-file\n");
    chmodSync(file, 0o644);
    const serve = await startServe(["--token-file", file, "--agent", fixtureAgentCommand()]);
    try {
      assert.equal(serve.token, undefined, "a token the user gave is not printed");
      await serve.waitForStderr(/--token-file .* may be read by other users of this machine: chmod 600 it/);
      assert.equal((await postJson(serve.url, {}, "{}")).status, 401);
      const answered = await newSession(serve.url, "token-from-a-file", []);
      assert.match(answered.result.sessionId, /./);
    } finally {
      assert.deepEqual(await serve.stop(), { code: 0, signal: null });
    }
    const empty = join(work, "empty");
    writeFileSync(empty, "\n");
    const refused = serveOnce(["--token-file", empty]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /--token-file .*: its first line is empty/);
    assert.match(serveOnce(["--help"]).stdout, /every user of this machine sees it \(ps\)/);
  });

  it(
    "--token on the command line is gone from ps once serving",
    { ...STEP, skip: process.platform !== "linux" },
    async () => {
      const serve = await startServe(["--token", "visible-token-4321", "--agent", fixtureAgentCommand()]);
      try {
        const cmdline = readFileSync(`/proc/${serve.child.pid}/cmdline`, "utf8");
        assert.ok(!cmdline.includes("visible-token-4321"), cmdline);
      } finally {
        assert.deepEqual(await serve.stop(), { code: 0, signal: null });
      }
    },
  );
});

describe("acp serve: client-named stdio MCP servers", () => {
  const marker = () => join(work, `mcp-ran-${Math.random().toString(36).slice(2)}`);
  const stdioServer = (file: string) => ({
    name: "sneaky",
    command: "/bin/sh",
    args: ["-c", `touch "${file}"; sleep 2`],
    env: [],
  });

  it("--refuse-stdio-mcp: session/new naming one is -32602 and the command never runs", STEP, async () => {
    const serve = await startServe(["--refuse-stdio-mcp"]);
    try {
      const file = marker();
      const answer = await newSession(serve.url, serve.token, [stdioServer(file)]);
      assert.equal(answer.error?.code, -32602, JSON.stringify(answer));
      assert.match(answer.error.message, /does not start MCP servers named by clients as commands/);
      assert.deepEqual(answer.error.data, { refused: ["sneaky"] });
      await sleep(1000);
      assert.equal(existsSync(file), false, "the command did not run");
      const plain = await newSession(serve.url, serve.token, []);
      assert.match(plain.result.sessionId, /./, "a session without one is served");
    } finally {
      assert.deepEqual(await serve.stop(), { code: 0, signal: null });
    }
  });

  it("on loopback by default they pass (the reference agent runs the command)", STEP, async () => {
    const serve = await startServe([]);
    try {
      const file = marker();
      await newSession(serve.url, serve.token, [stdioServer(file)]);
      const deadline = Date.now() + 10_000;
      while (!existsSync(file) && Date.now() < deadline) await sleep(50);
      assert.equal(existsSync(file), true, "the agent started the client's command");
    } finally {
      assert.deepEqual(await serve.stop(), { code: 0, signal: null });
    }
  });
});

describe("acp serve: a second SIGTERM", { skip: process.platform === "linux" ? false : "/proc" }, () => {
  it("kills the agents at once instead of waiting for their stop grace", STEP, async () => {
    // An agent that ignores SIGTERM and leaves a child that does too: a first stop waits out the grace (3 s).
    const stubborn = `sh -c 'trap "" TERM; sleep 300 >/dev/null 2>&1 & exec "${process.execPath}" "${fixturePath("interop-agent-app")}" --impl=acpkit'`;
    const serve = await startServe(["--agent", stubborn, "--grace", "0", "--verbose"]);
    await newSession(serve.url, serve.token, []);
    const agentPid = Number(
      (await serve.waitForStderr(/agent [0-9a-f]{8} \| \[agent (\d+)\] interop-agent-app on acpkit ready/))[1],
    );
    const started = Date.now();
    serve.child.kill("SIGTERM");
    await serve.waitForStderr(/again to force/);
    serve.child.kill("SIGTERM");
    const status = await serve.exited;
    const elapsed = Date.now() - started;
    assert.deepEqual(status, { code: 0, signal: null });
    assert.match(serve.stderr(), /stopping the agents now \(SIGKILL\)/);
    assert.ok(elapsed < 2500, `exited in ${elapsed} ms, without the 3 s grace`);
    await waitForExit(agentPid, 2000);
  });
});
