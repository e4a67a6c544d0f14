/**
 * `acp agent --store postgres://...` over real processes and a real PostgreSQL: sessions live in the database (no
 * file is written), survive kill -9 mid-turn (a new process waits out the dead one's lease, then loads and replays
 * every update sent before the kill), are refused with a clear error while another agent process has them open,
 * and the database password is never shown (not in `ps`, not on stderr, not in a failure to connect).
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type * as acp from "sdk-1.9";
import {
  postgresUnavailable,
  startTestPostgres,
  type TestPostgres,
} from "../../../src/node/testing/postgres-server.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { CLI, startRefAgent, text, type RefAgent } from "../fixtures/ref-harness.js";

const unavailable = postgresUnavailable();
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isCommands = (u: acp.SessionUpdate) => u.sessionUpdate === "available_commands_update";

describe("acp agent --store postgres://...", { skip: unavailable }, () => {
  let server: TestPostgres;
  let root: string;
  let dataDir: string;
  let url: string;
  const agents: RefAgent[] = [];
  const start = async (...args: string[]) => {
    const agent = await startRefAgent({ root, dataDir, args: ["--store", url, ...args] });
    agents.push(agent);
    return agent;
  };

  before(async () => {
    server = await startTestPostgres();
    await server.createDatabase("agent_sessions");
    url = server.connectionStringFor("agent_sessions");
    root = makeTempDir("ref-pg-ws-");
    dataDir = makeTempDir("ref-pg-data-");
  });
  after(async () => {
    for (const agent of agents) await agent.stop(500);
    await server?.close();
    removeTempDir(root);
    removeTempDir(dataDir);
  });

  it("a session survives kill -9 mid-turn: a new process waits out the dead one's lease, loads it and replays every update sent before the kill", async () => {
    const first = await start();
    const { sessionId } = await first.connection.newSession({ cwd: root, mcpServers: [] });
    await first.connection.prompt(text(sessionId, "/stream 5 before"));
    await first.connection.prompt(text(sessionId, "hello there"));
    const slow = first.connection.prompt(text(sessionId, "/slow 10000"));
    slow.catch(() => {});
    await first.host.until(() => first.host.said(sessionId).includes("Working for 10000 ms"), 5000, "the slow turn");
    await delay(300);
    const sent = first.host.of(sessionId);
    first.child.kill("SIGKILL");
    await first.exited;
    const killedAt = performance.now();

    const second = await start();
    await second.connection.loadSession({ sessionId, cwd: root, mcpServers: [] });
    const waited = performance.now() - killedAt;
    assert.ok(waited < 10_000 + 4_000, `loaded ${Math.round(waited)} ms after the kill (lease 10 s)`);
    const replayed = second.host.of(sessionId).filter((u) => !isCommands(u));
    assert.deepEqual(
      replayed.flatMap((u) =>
        u.sessionUpdate === "user_message_chunk" && u.content.type === "text" ? [u.content.text] : [],
      ),
      ["/stream 5 before", "hello there", "/slow 10000"],
    );
    assert.deepEqual(
      replayed.filter((u) => u.sessionUpdate !== "user_message_chunk"),
      sent.filter((u) => !isCommands(u)),
      "every update the client saw before the kill is replayed, in order",
    );
    assert.equal((await second.connection.prompt(text(sessionId, "/stream 2 after"))).stopReason, "end_turn");
    assert.ok(!existsSync(path.join(dataDir, "sessions")), "no session file written");
    await second.stop();
  });

  it("a session open in another agent process is refused with a clear error (--store-wait 0), and loads once that process closed it", async () => {
    const holder = await start();
    const { sessionId } = await holder.connection.newSession({ cwd: root, mcpServers: [] });
    await holder.connection.prompt(text(sessionId, "hello there"));
    const other = await start("--store-wait", "0");
    const started = performance.now();
    await assert.rejects(
      other.connection.loadSession({ sessionId, cwd: root, mcpServers: [] }),
      (error: { code?: number; message?: string; data?: { reason?: string } }) =>
        error.code === -32603 &&
        error.data?.reason === "session_leased" &&
        new RegExp(`open for writing in another process \\(.* pid ${holder.child.pid}\\)`).test(error.message!) &&
        /Close it there/.test(error.message!),
    );
    assert.ok(performance.now() - started < 5_000, "refused at once");
    const listed = await other.connection.listSessions({ cwd: root });
    assert.ok(
      listed.sessions.some((s) => s.sessionId === sessionId),
      "listing needs no lease",
    );
    await holder.connection.closeSession({ sessionId });
    await other.connection.loadSession({ sessionId, cwd: root, mcpServers: [] });
    assert.ok(other.host.said(sessionId).length > 0, "replayed");
    await holder.stop();
    await other.stop();
  });

  it("the password is never shown: not in ps, not on stderr; a wrong one exits 1 naming the database, not the password", async () => {
    const agent = await start("--log-level", "debug");
    const { sessionId } = await agent.connection.newSession({ cwd: root, mcpServers: [] });
    await agent.connection.prompt(text(sessionId, "hello there"));
    // What ps shows (Linux: /proc; elsewhere ps itself).
    const cmdline = existsSync("/proc/self/cmdline")
      ? readFileSync(`/proc/${agent.child.pid}/cmdline`, "utf8")
      : execFileSync("ps", ["-o", "command=", "-p", String(agent.child.pid)], { encoding: "utf8" });
    assert.ok(!cmdline.includes(server.password), `ps shows ${JSON.stringify(cmdline)}`);
    await agent.stop();
    assert.match(
      agent.stderr(),
      /postgres:\/\/postgres@127\.0\.0\.1:\d+\/agent_sessions/,
      "the log names the database",
    );
    for (const one of agents) assert.ok(!one.stderr().includes(server.password));

    const wrong = `postgres://postgres:wrong-${server.password}@127.0.0.1:${server.port}/agent_sessions`;
    const child = spawn(process.execPath, [CLI, "agent", "--store", wrong], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("exit", (exit) => resolve(exit)));
    assert.equal(code, 1, stderr);
    assert.match(stderr, /^acp agent: cannot open the session store \(--store\): .*password authentication failed/m);
    assert.ok(!stderr.includes(server.password), stderr);
  });
});
