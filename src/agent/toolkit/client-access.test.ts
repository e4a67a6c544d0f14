import assert from "node:assert/strict";
import { test } from "node:test";
import { CapabilityMissingError } from "../../jsonrpc/index.js";
import type { Client } from "../../acp/client-handler.js";
import type { RunCommandResult } from "./client-access.js";
import type { PromptTurn } from "./prompt-turn.js";
import { connectToolkit, delay, until } from "./testing/harness.js";

const newParams = { cwd: "/work/project", mcpServers: [] };
const allCaps = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };

/** A client whose terminals exit after `exitAfterMs` (never if undefined); it logs every terminal call. */
function terminalClient(log: string[], exitAfterMs?: number): Partial<Client> {
  let killed = false;
  return {
    createTerminal: (params) => {
      log.push(
        `create ${params.command} ${(params.args ?? []).join(" ")} env=${(params.env ?? []).map((e) => `${e.name}=${e.value}`).join(",")} limit=${params.outputByteLimit ?? "-"}`,
      );
      return { terminalId: "term_1" };
    },
    waitForTerminalExit: () => {
      log.push("wait");
      return exitAfterMs === undefined ? new Promise(() => {}) : delay(exitAfterMs).then(() => ({ exitCode: 0 }));
    },
    killTerminal: () => {
      log.push("kill");
      killed = true;
      return {};
    },
    terminalOutput: () => {
      log.push("output");
      return { output: "hello\n", truncated: false, exitStatus: killed ? { signal: "SIGTERM" } : { exitCode: 0 } };
    },
    releaseTerminal: () => void log.push("release"),
  };
}

async function runTurn(caps: object, overrides: Partial<Client>, body: (turn: PromptTurn) => Promise<void>) {
  const h = await connectToolkit({ onPrompt: async (turn) => void (await body(turn)) }, caps, overrides);
  const { sessionId } = await h.client.newSession(newParams);
  return { h, sessionId, answer: h.client.prompt({ sessionId, prompt: [{ type: "text", text: "go" }] }) };
}

test("files: read and write go through the client when advertised", async () => {
  const files = new Map([["/work/project/a.txt", "one\ntwo\n"]]);
  let read = "";
  const { answer } = await runTurn(
    allCaps,
    {
      readTextFile: (params) => ({ content: `${files.get(params.path)}@${params.line ?? "-"}:${params.limit ?? "-"}` }),
      writeTextFile: (params) => void files.set(params.path, params.content),
    },
    async (turn) => {
      read = await turn.readFile("/work/project/a.txt", { line: 2, limit: 1 });
      await turn.writeFile("/work/project/b.txt", "new");
    },
  );
  assert.deepEqual(await answer, { stopReason: "end_turn" });
  assert.equal(read, "one\ntwo\n@2:1");
  assert.equal(files.get("/work/project/b.txt"), "new");
});

test("missing capabilities are refused locally, naming the capability; nothing is sent", async () => {
  const errors: unknown[] = [];
  const { answer } = await runTurn({ fs: { readTextFile: true } }, {}, async (turn) => {
    for (const attempt of [
      () => turn.writeFile("/work/project/a", "x"),
      () => turn.createTerminal({ command: "ls" }),
      () => turn.runCommand({ command: "ls" }),
    ]) {
      await attempt().catch((error: unknown) => errors.push(error));
    }
  });
  await answer;
  assert.equal(errors.length, 3);
  assert.ok(
    errors.every((e) => e instanceof CapabilityMissingError),
    "refused locally (a sent request would get -32601 from this client)",
  );
  assert.match((errors[0] as Error).message, /clientCapabilities\.fs\.writeTextFile/);
  assert.match((errors[1] as Error).message, /"terminal\/create" needs .*clientCapabilities\.terminal/);
});

test(
  "runCommand: create, wait, output, release; env and limits pass through; the terminal is embedded in a tool " +
    "call",
  async () => {
    const log: string[] = [];
    let result!: RunCommandResult;
    const { h, answer } = await runTurn(allCaps, terminalClient(log, 5), async (turn) => {
      const call = turn.toolCall({ title: "npm test", kind: "execute" });
      result = await turn.runCommand({
        command: "npm",
        args: ["test"],
        env: { CI: "1" },
        outputByteLimit: 1000,
        timeoutMs: 5000,
        toolCall: call,
      });
      await call.complete();
    });
    await answer;
    assert.deepEqual(result, {
      terminalId: "term_1",
      exitStatus: { exitCode: 0 },
      output: "hello\n",
      truncated: false,
      timedOut: false,
    });
    assert.deepEqual(log, ["create npm test env=CI=1 limit=1000", "wait", "output", "release"]);
    const embedded = h.updates
      .map((n) => n.update)
      .find((u) => u.sessionUpdate === "tool_call_update" && u.content !== undefined) as { content: unknown[] };
    assert.deepEqual(embedded.content, [{ type: "terminal", terminalId: "term_1" }]);
  },
);

test("runCommand timeout: kills, collects the output, releases, and reports timedOut", async () => {
  const log: string[] = [];
  let result!: RunCommandResult;
  const { answer } = await runTurn(allCaps, terminalClient(log), async (turn) => {
    result = await turn.runCommand({ command: "sleep", args: ["100"], timeoutMs: 30 });
  });
  await answer;
  assert.equal(result.timedOut, true);
  assert.deepEqual(result.exitStatus, { signal: "SIGTERM" });
  assert.deepEqual(log, ["create sleep 100 env= limit=-", "wait", "kill", "output", "release"]);
});

test(
  "runCommand on a cancelled turn: the wait is abandoned, the " + "terminal released, the turn answers cancelled",
  async () => {
    const log: string[] = [];
    let caught: unknown;
    const { h, sessionId, answer } = await runTurn(allCaps, terminalClient(log), async (turn) => {
      try {
        await turn.runCommand({ command: "sleep", args: ["100"] });
      } catch (error) {
        caught = error;
        throw error;
      }
    });
    await until(() => log.includes("wait"), 2000, "the wait");
    await h.client.cancel({ sessionId });
    assert.deepEqual(await answer, { stopReason: "cancelled" });
    await until(() => log.includes("release"), 2000, "the release");
    assert.ok(!log.includes("output"));
    assert.ok(caught !== undefined);
  },
);

test("runCommand releases even when collecting the output fails", async () => {
  const log: string[] = [];
  const client = { ...terminalClient(log, 1), terminalOutput: () => Promise.reject(new Error("client broke")) };
  let caught: unknown;
  const { answer } = await runTurn(allCaps, client, async (turn) => {
    caught = await turn.runCommand({ command: "ls" }).catch((error: unknown) => error);
  });
  await answer;
  assert.ok(caught instanceof Error);
  assert.deepEqual(log, ["create ls  env= limit=-", "wait", "release"]);
});
