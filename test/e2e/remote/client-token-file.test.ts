/**
 * The programs that reach a remote agent keep its token out of `ps` as `acp serve` does: `acp exec`, `acp chat`,
 * `acp connect` and `acp sessions` take `--token-file FILE` (its first line), against a real `acp serve` with a
 * generated token, none of them given `ACP_TOKEN`. A file other users may read is noted; a wrong token in the file
 * is the server's 401 with what to do; a value flag never swallows the next option.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { track } from "../interop/support/spawn.js";
import { ACP_MAIN, startServe, type ServeProcess } from "./support/serve-process.js";

const STEP = { timeout: 120_000 };
/** This environment without ACP_TOKEN: the token must come from the file. */
const ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "ACP_TOKEN"));

let work: string;
let serve: ServeProcess;
let tokenFile: string;

before(async () => {
  work = makeTempDir("acp-client-token-file-");
  serve = await startServe([]);
  assert.ok(serve.token, "acp serve generated a token");
  tokenFile = join(work, "token");
  writeFileSync(tokenFile, `${serve.token}\n`);
  chmodSync(tokenFile, 0o600);
});

after(async () => {
  await serve?.stop();
  removeTempDir(work);
});

function acp(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [ACP_MAIN, ...args], {
    encoding: "utf8",
    timeout: 60_000,
    env: ENV,
    cwd: work,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("acp exec --token-file: a turn over each profile, nothing noted for a file of mode 600", STEP, () => {
  for (const profile of ["websocket", "http"]) {
    const run = acp("exec", "--agent", serve.url, "--profile", profile, "--token-file", tokenFile, "hello");
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /may be read by other users/);
  }
});

test("acp chat and acp sessions take --token-file; a file others may read is noted", STEP, () => {
  const chat = spawnSync(
    process.execPath,
    [ACP_MAIN, "chat", "--agent", serve.url, "--token-file", tokenFile, "--no-color"],
    { encoding: "utf8", timeout: 60_000, env: ENV, cwd: work, input: "hello\n" },
  );
  assert.equal(chat.status, 0, chat.stderr);
  const readable = join(work, "readable-token");
  writeFileSync(readable, `${serve.token}\n`);
  chmodSync(readable, 0o644);
  const sessions = acp("sessions", "--token-file", readable, serve.url);
  assert.equal(sessions.status, 0, sessions.stderr);
  assert.match(sessions.stderr, /acp sessions: --token-file .*readable-token may be read by other users.*chmod 600/);
  assert.equal(acp("sessions", "--token", "--json", serve.url).status, 2, "--token does not swallow --json");
});

test("acp connect --token-file: the editor's initialize is answered; the token is not in ps", STEP, async () => {
  const child = spawn(process.execPath, [ACP_MAIN, "connect", serve.url, "--token-file", tokenFile], {
    env: ENV,
    stdio: ["pipe", "pipe", "pipe"],
  });
  track(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = once(child, "close");
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
  );
  const deadline = Date.now() + 30_000;
  while (!stdout.includes("\n") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const answer = JSON.parse(stdout.split("\n")[0]!) as { id: number; result?: { protocolVersion: number } };
  assert.equal(answer.id, 1, stderr);
  assert.equal(answer.result?.protocolVersion, 1, stdout);
  if (process.platform === "linux") {
    const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, "utf8");
    assert.ok(!cmdline.includes(serve.token!), "the token is not on acp connect's command line");
  }
  child.stdin.end();
  const [code] = (await exited) as [number | null];
  assert.equal(code, 0, stderr);
});

test("a wrong token in the file: the server's 401, and what to do", STEP, () => {
  const wrong = join(work, "wrong-token");
  writeFileSync(wrong, "not-the-token\n");
  chmodSync(wrong, 0o600);
  const run = acp("exec", "--agent", serve.url, "--profile", "http", "--token-file", wrong, "hello");
  assert.equal(run.status, 3, run.stderr);
  assert.match(run.stderr, /HTTP 401 Unauthorized: the bearer token is not valid/);
  assert.match(run.stderr, /Pass --token or set ACP_TOKEN/);
});

test("acp serve logs each refused request with the address it came from", STEP, async () => {
  await serve.waitForStderr(/refused a remote request \{"status":401,.*"remoteAddress":"127\.0\.0\.1"\}/);
});

test("usage mistakes exit 2 before connecting, saying what to do", STEP, () => {
  const cases: Array<[string[], RegExp]> = [
    [["exec", "--agent", serve.url, "--token", "t", "--token-file", tokenFile, "hi"], /--token and --token-file/],
    [["exec", "--agent", serve.url, "--token-file", join(work, "missing"), "hi"], /cannot read it \(ENOENT\)/],
    [["exec", "--token-file", tokenFile, "hi"], /--token-file, --header and --profile are for a remote agent/],
    [["connect", serve.url, "--token", "--reconnect"], /--token needs a value, but --reconnect follows it/],
    [["connect", "--connect-timeout=x", serve.url], /--connect-timeout takes a positive number of seconds; got "x"/],
    [
      ["serve", "--port", "0", "--token", "--verbose"],
      /--token needs a value, but --verbose follows it, which is an option/,
    ],
  ];
  for (const [args, pattern] of cases) {
    const run = acp(...args);
    assert.equal(run.status, 2, `acp ${args.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, pattern);
  }
});
