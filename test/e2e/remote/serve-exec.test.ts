/**
 * `acp exec` against `acp serve` (the reference agent behind it), over WebSocket (`ws://`) and Streamable HTTP
 * (`http://` with `--profile http`): the agent's `/run CMD` asks the client for a terminal, and the command runs on
 * the client side, as the protocol says: a child of `acp exec`, not of `acp serve`, in the client's `--cwd`, under
 * the client's permission policy (refused with `deny-all`, nothing run).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startExec } from "../exec/support.js";
import { within } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { startServe, type ServeProcess } from "./support/serve-process.js";

const STEP = { timeout: 90_000 };
const TOKEN = "exec-terminal";
/** A shell line that lists the pids of its own process and every ancestor, one `ancestor N` line each. */
const ANCESTRY = 'p=$$; while [ "$p" -gt 1 ]; do echo "ancestor $p"; p=$(cut -d" " -f4 /proc/$p/stat); done';

interface ExecResult {
  stopReason?: string;
  text?: string;
  toolCalls?: { kind?: string; status?: string }[];
}

describe("acp exec --agent URL: the remote agent's terminal request is served by acp exec", () => {
  let serve: ServeProcess;
  const dirs: string[] = [];
  const temp = (prefix: string) => {
    const dir = makeTempDir(prefix);
    dirs.push(dir);
    return dir;
  };
  before(async () => {
    serve = await startServe(["--token", TOKEN, "--cwd", temp("acp-serve-side-")]);
  });
  after(async () => {
    assert.deepEqual(await serve.stop(), { code: 0, signal: null });
    for (const dir of dirs) removeTempDir(dir);
  });

  for (const [name, agentArgs] of [
    ["ws://", () => ["--agent", serve.webSocketUrl]],
    ["http:// (Streamable HTTP)", () => ["--agent", serve.url, "--profile", "http"]],
  ] as const) {
    it(
      `${name}: /run runs in a terminal of acp exec, in its --cwd; deny-all refuses it`,
      { ...STEP, skip: process.platform === "linux" ? false : "the ancestry is read from /proc" },
      async () => {
        const work = temp("acp-exec-client-");
        const run = startExec([
          ...agentArgs(),
          "--token",
          TOKEN,
          "--cwd",
          work,
          "--permissions",
          "allow-all",
          "--format",
          "json",
          `/run pwd > where.txt; ${ANCESTRY}`,
        ]);
        const { code, stdout, stderr } = await within(run.done, 60_000, "acp exec");
        assert.equal(code, 0, stderr);
        const result = JSON.parse(stdout) as ExecResult;
        assert.equal(result.stopReason, "end_turn");
        assert.deepEqual(
          result.toolCalls?.map((call) => [call.kind, call.status]),
          [["execute", "completed"]],
        );
        assert.equal(
          readFileSync(join(work, "where.txt"), "utf8").trim(),
          work,
          "the command ran in the client's --cwd",
        );
        const ancestors = [...(result.text ?? "").matchAll(/ancestor (\d+)/g)].map((match) => Number(match[1]));
        assert.ok(ancestors.length >= 2, result.text);
        assert.ok(
          ancestors.includes(run.child.pid!),
          `acp exec (${run.child.pid}) is an ancestor of the command: ${ancestors.join(" ")}`,
        );
        assert.ok(!ancestors.includes(serve.child.pid!), "acp serve is not an ancestor of the command");

        const denied = startExec([
          ...agentArgs(),
          "--token",
          TOKEN,
          "--cwd",
          work,
          "--permissions",
          "deny-all",
          "--format",
          "json",
          "/run echo ran > denied.txt",
        ]);
        const refusal = await within(denied.done, 60_000, "acp exec with deny-all");
        assert.equal(refusal.code, 0, refusal.stderr);
        const refused = JSON.parse(refusal.stdout) as ExecResult;
        assert.deepEqual(
          refused.toolCalls?.map((call) => [call.kind, call.status]),
          [["execute", "failed"]],
        );
        assert.match(refused.text ?? "", /did not succeed/);
        assert.equal(existsSync(join(work, "denied.txt")), false, "nothing ran");
      },
    );
  }
});
