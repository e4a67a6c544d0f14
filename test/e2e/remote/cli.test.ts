/**
 * The programs with remote agents, end to end over real sockets and real pipes, against a remote server process
 * (`SERVER_IMPLS`) hosting the reference agent:
 * - `acp exec --agent http://...` and `ws://...`: the agent's file writes land on the client side, tokens from
 *   `--token` or `ACP_TOKEN`, headers from `--header`; an unreachable agent is a startup failure (exit 3).
 * - `acp connect URL`: an acpkit client drives it over its stdin/stdout as an editor would; frames pass both ways,
 *   stdout carries nothing but frames, stdin's end closes the remote connection (exit 0), the remote going away
 *   ends it with a message on stderr (exit 1).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ClientSideConnection } from "../../../src/entries/index.js";
import { ACP, startExec } from "../exec/support.js";
import { track, within } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { ClientHost } from "./support/client.js";
import { hostClient, startConnect } from "./support/connect-process.js";
import { SERVER_IMPLS, startServer, type RunningServer } from "./support/server.js";

const STEP = { timeout: 90_000 };
const TOKEN = "cli-s3cret";

for (const serverImpl of SERVER_IMPLS) {
  describe(`the programs with a remote agent (${serverImpl} server)`, () => {
    let server: RunningServer;
    const dirs: string[] = [];
    const temp = (prefix: string) => {
      const dir = makeTempDir(prefix);
      dirs.push(dir);
      return dir;
    };
    after(async () => {
      await server?.kill();
      for (const dir of dirs) removeTempDir(dir);
    });

    it("acp exec --agent ws://... and http://...: the agent's write lands in the client's --cwd", STEP, async () => {
      server = await startServer(serverImpl, { dataDir: temp("acp-cli-data-"), token: TOKEN });
      // A server without WebSocket: the http:// run falls back to Streamable HTTP (and deletes its connection).
      const httpOnly = await startServer(serverImpl, {
        dataDir: temp("acp-cli-data-"),
        token: TOKEN,
        websocket: false,
      });
      try {
        for (const [url, auth] of [
          [server.url("ws"), []],
          [httpOnly.url("http"), ["--token", TOKEN]],
        ] as const) {
          const work = temp("acp-cli-work-");
          const run = startExec(
            [
              "--agent",
              url,
              ...auth,
              "--header",
              "X-Extra: exec",
              "--cwd",
              work,
              "--permissions",
              "allow-all",
              "--format",
              "json",
              `/write out.txt written by ${url}`,
            ],
            {
              env: auth.length === 0 ? { ACP_TOKEN: TOKEN } : {},
            },
          );
          const { code, stdout, stderr } = await within(run.done, 60_000, `acp exec with ${url}`);
          assert.equal(code, 0, `exit code; stderr: ${stderr}`);
          assert.equal(readFileSync(join(work, "out.txt"), "utf8"), `written by ${url}`);
          assert.equal((JSON.parse(stdout) as { stopReason?: string }).stopReason, "end_turn");
        }
        assert.ok(
          server.requests.some(
            (r) => r.upgrade === "websocket" && r.authorization === `Bearer ${TOKEN}` && r.extra === "exec",
          ),
          "the ws run sent ACP_TOKEN and the header on the upgrade",
        );
        await httpOnly.until((r) => r.method === "DELETE" && r.status === 202, "the http run to delete its connection");
        assert.ok(
          httpOnly.requests
            .filter((r) => r.method === "POST")
            .every((r) => r.authorization === `Bearer ${TOKEN}` && r.extra === "exec"),
        );
      } finally {
        await httpOnly.kill();
      }
    });

    it(
      "acp chat --agent ws://...: a piped chat writes on the client side after a permission answered by a line",
      STEP,
      async () => {
        server ??= await startServer(serverImpl, { dataDir: temp("acp-cli-data-"), token: TOKEN });
        const work = temp("acp-cli-work-");
        const child = spawn(process.execPath, [ACP, "chat", "--agent", server.url("ws"), "--token", TOKEN], {
          cwd: work,
          env: { ...process.env, NO_COLOR: "1" },
          stdio: ["pipe", "pipe", "pipe"],
        });
        track(child);
        child.stdin.end("/write chat.txt from the chat\n1\n");
        let out = "";
        child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
        const code = await within(new Promise((resolve) => child.once("exit", resolve)), 60_000, "acp chat to exit");
        assert.equal(code, 0, out);
        assert.match(out, /connecting to ws:\/\/127\.0\.0\.1:\d+\/acp\nconnected to acp reference agent/);
        assert.match(out, /✓ Allow once: Create chat\.txt/);
        assert.equal(readFileSync(join(work, "chat.txt"), "utf8"), "from the chat");
      },
    );

    it("acp exec with an unreachable agent URL is a startup failure with a clear message", STEP, async () => {
      const dead = await startServer(serverImpl, {});
      const url = dead.url("ws");
      await dead.kill();
      const { code, stderr } = await within(startExec(["--agent", url, "hello"]).done, 30_000, "acp exec");
      assert.equal(code, 3);
      assert.match(stderr, /Could not open a WebSocket to the ACP server at ws:\/\/127\.0\.0\.1:\d+\/acp/);
    });

    for (const profile of ["auto", "http"] as const) {
      it(
        `acp connect (--profile ${profile}): an acpkit client over real stdio pipes, frames both ways, ` +
          `stdin's end closes`,
        STEP,
        async () => {
          server ??= await startServer(serverImpl, { dataDir: temp("acp-cli-data-"), token: TOKEN });
          const work = temp("acp-cli-work-");
          const host = new ClientHost(work);
          const bridge = startConnect([server.url(), "--token", TOKEN, "--profile", profile]);
          const connection = new ClientSideConnection(() => hostClient(host), bridge.stream);
          const init = await connection.initialize({
            protocolVersion: 1,
            clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
          });
          assert.equal(init.agentInfo?.name, "acpkit-reference-agent");
          const { sessionId } = await connection.newSession({ cwd: work, mcpServers: [] });
          const mark = host.updates.length;
          assert.equal(
            (await connection.prompt({ sessionId, prompt: [{ type: "text", text: "/stream 5" }] })).stopReason,
            "end_turn",
          );
          assert.equal(host.texts(mark, sessionId).join(""), "chunk 1\nchunk 2\nchunk 3\nchunk 4\nchunk 5\n");
          await connection.prompt({
            sessionId,
            prompt: [{ type: "text", text: "/write bridged.txt through the bridge" }],
          });
          assert.equal(readFileSync(join(work, "bridged.txt"), "utf8"), "through the bridge");
          assert.equal(host.permissionRequests.length, 1);
          const mark2 = server.requests.length;
          bridge.child.stdin!.end();
          assert.equal(await within(bridge.exited, 20_000, "the bridge to exit"), 0, bridge.stderr());
          if (profile === "http")
            await server.until((r) => r.method === "DELETE" && r.status === 202, "the DELETE", 10_000, mark2);
          const agentLines = bridge.wire.filter((line) => line.from === "agent");
          assert.ok(agentLines.length > 10);
          for (const line of agentLines)
            assert.doesNotThrow(() => JSON.parse(line.text), `stdout carries only frames: ${line.text}`);
          assert.match(
            bridge.stderr(),
            new RegExp(`connected to .* \\((${profile === "http" ? "Streamable HTTP" : "WebSocket"})\\)`),
          );
          host.dispose();
        },
      );
    }

    it(
      "acp connect: the remote going away mid-turn exits 1 with a message on stderr; the waiting request is answered",
      STEP,
      async () => {
        const doomed = await startServer(serverImpl, { dataDir: temp("acp-cli-data-") });
        const work = temp("acp-cli-work-");
        const host = new ClientHost(work);
        const bridge = startConnect([doomed.url("http"), "--profile", "http"]);
        const connection = new ClientSideConnection(() => hostClient(host), bridge.stream);
        await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
        const { sessionId } = await connection.newSession({ cwd: work, mcpServers: [] });
        const turn = connection.prompt({ sessionId, prompt: [{ type: "text", text: "/slow 60000" }] });
        turn.catch(() => {});
        await host.until(
          () => host.texts(0, sessionId).some((t) => t.startsWith("Working")),
          30_000,
          "the turn to start",
        );
        await doomed.kill();
        assert.equal(await within(bridge.exited, 20_000, "the bridge to exit"), 1);
        assert.match(bridge.stderr(), /acp connect: .*(went away|broke off|dropped)/);
        await assert.rejects(within(turn, 10_000, "the turn to end"));
        for (const line of bridge.wire.filter((l) => l.from === "agent")) JSON.parse(line.text);
        host.dispose();
      },
    );
  });
}
