/**
 * Runs the compiled examples (examples/*.ts) as a user would, and checks what they print: against this repository's
 * build (test/e2e/examples.test.ts) and against the packed tarballs installed into an empty project
 * (test/e2e/packaging). Each check takes the directory holding the compiled examples and the environment to run
 * them in. Does nothing when run by itself.
 */
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `file args` to its end (at most `timeoutMs`); never rejects. */
export function runFile(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        encoding: "utf8",
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ code, signal: (error?.signal as NodeJS.Signals | undefined) ?? null, stdout, stderr });
      },
    );
  });
}

const show = (run: Run) => `exit ${run.code} ${run.signal ?? ""}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;

/** toolkit-client.js drives toolkit-agent.js: a streamed answer, a tool call allowed (or denied with --deny). */
export async function checkToolkitPair(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const allowed = await runFile(process.execPath, [join(dir, "toolkit-client.js"), "one two three"], { env });
  assert.equal(allowed.code, 0, show(allowed));
  assert.match(allowed.stdout, /^example-toolkit-agent answered \(end_turn\):/);
  assert.match(allowed.stdout, /tool: Count the words of the prompt \(completed\)/);
  assert.match(allowed.stdout, /agent: Your prompt has 3 words\./);
  const denied = await runFile(process.execPath, [join(dir, "toolkit-client.js"), "--deny", "one two"], { env });
  assert.equal(denied.code, 0, show(denied));
  assert.match(denied.stdout, /tool: Count the words of the prompt \(failed\)/);
  assert.match(denied.stdout, /You said no, so I did not count them\./);
}

/** app-client.js drives app-agent.js on the 2.x app API. */
export async function checkAppPair(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const run = await runFile(process.execPath, [join(dir, "app-client.js"), "shout this"], { env });
  assert.equal(run.code, 0, show(run));
  assert.equal(run.stdout, "SHOUT THIS\n");
}

/** cassette.test.js passes (a recording made against toolkit-agent.js, replayed to a good and a wrong client). */
export async function checkCassetteTest(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  // Without NODE_TEST_CONTEXT: a `node --test` run by a test would report to its parent, not print TAP.
  const { NODE_TEST_CONTEXT: _, ...own } = env;
  const run = await runFile(process.execPath, ["--test", "--test-reporter=tap", join(dir, "cassette.test.js")], {
    env: own,
  });
  assert.equal(run.code, 0, show(run));
  assert.match(run.stdout, /# pass 2\n/);
}

/**
 * remote-server.js serves, remote-client.js gets an answer over `profile` (the profile connectRemote chose), the
 * server stops on SIGTERM.
 */
export async function checkRemotePair(dir: string, env: NodeJS.ProcessEnv, profile: "websocket" | "http") {
  const server = spawn(process.execPath, [join(dir, "remote-server.js"), "0"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  server.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  server.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = once(server, "exit");
  try {
    const started = Date.now();
    while (!/token \S+\n/.test(out)) {
      assert.equal(server.exitCode, null, `remote-server.js exited: ${out}${err}`);
      assert.ok(Date.now() - started < 60_000, `remote-server.js printed no token: ${out}${err}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = /^url (\S+)$/m.exec(out)![1]!;
    const token = /^token (\S+)$/m.exec(out)![1]!;
    const client = await runFile(process.execPath, [join(dir, "remote-client.js"), url, "over", "the", "network"], {
      env: { ...env, ACP_TOKEN: token },
    });
    assert.equal(client.code, 0, show(client));
    assert.equal(client.stdout, `You said: over the network\n(${profile}, end_turn)\n`);
    const refused = await runFile(process.execPath, [join(dir, "remote-client.js"), url, "hi"], {
      env: { ...env, ACP_TOKEN: "wrong" },
    });
    assert.notEqual(refused.code, 0, "a wrong token is refused");
    server.kill("SIGTERM");
    const [code] = await exited;
    assert.equal(code, 0, `remote-server.js after SIGTERM: ${out}${err}`);
    assert.match(out, /stopped\n$/);
  } finally {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
  }
}
