/**
 * `acp chat`'s agent-setup flags, shared with `acp exec`, over a pipe against the exec fixture agent (official SDK):
 * `--trace`, `--mcp-config` / `--mcp` (the agent echoes the MCP servers it received), authentication when the agent
 * answers auth_required or with `--auth`, `--permissions`, and a bad `--mcp-config` (exit code 2).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ACP_CLI } from "../support/programs.js";

const cli = ACP_CLI;
const execAgent = fileURLToPath(new URL("../fixtures/exec-agent.js", import.meta.url));
const sdkAgent = fileURLToPath(new URL("../fixtures/chat-sdk-agent.js", import.meta.url));
const cwd = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-chat-setup-")));
after(() => rmSync(cwd, { recursive: true, force: true }));

function chat(
  args: readonly string[],
  input: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cli, "chat", ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end(input);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

test(
  "--mcp-config and --mcp reach the agent in session/new; auth_required is answered by authenticating; " +
    "--trace records it all",
  { timeout: 20_000 },
  async () => {
    const config = join(cwd, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          files: { command: "./files-server", args: ["--ro"], env: { TOKEN: "t" } },
          docs: { type: "http", url: "https://docs.example/mcp" },
          old: { type: "sse", url: "https://old.example/sse" },
        },
      }),
    );
    const trace = join(cwd, "trace.ndjson");
    const run = await chat(
      [
        "--trace",
        trace,
        "--mcp-config",
        config,
        "--mcp",
        "extra=https://extra.example/mcp",
        "--",
        process.execPath,
        execAgent,
        "--exec-agent",
        "--require-auth",
        "--one-method",
      ],
      "mcp\nauth\n",
    );
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /MCP server "old" left out: the agent does not accept sse MCP servers/);
    assert.match(
      run.stdout,
      /the agent requires authentication \(Authentication required: log in first\)\nauthenticating with "token" \(API token\)\nsession exec-1/,
    );
    const servers = [
      { name: "files", command: join(cwd, "files-server"), args: ["--ro"], env: [{ name: "TOKEN", value: "t" }] },
      { type: "http", name: "docs", url: "https://docs.example/mcp", headers: [] },
      { type: "http", name: "extra", url: "https://extra.example/mcp", headers: [] },
    ];
    const echoed = /› mcp\n([\s\S]*?)\n› auth/.exec(run.stdout)?.[1]?.replaceAll("\n", "");
    assert.deepEqual(JSON.parse(echoed ?? "null"), servers, run.stdout);
    assert.match(run.stdout, /authenticated with token/);

    const [header, ...lines] = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as {
            time: number;
            from: string;
            message: { id?: number; method?: string; params?: { mcpServers?: unknown }; error?: { code: number } };
          },
      );
    assert.equal((header as unknown as { acpCassette: number }).acpCassette, 1, "a cassette header comes first");
    for (const line of lines) {
      assert.equal(typeof line.time, "number");
      assert.ok(line.from === "client" || line.from === "agent");
    }
    const sent = lines
      .filter((line) => line.from === "client" && line.message.method !== undefined)
      .map((line) => line.message.method);
    assert.deepEqual(sent, [
      "initialize",
      "session/new",
      "authenticate",
      "session/new",
      "session/prompt",
      "session/prompt",
    ]);
    assert.ok(
      lines.some((line) => line.from === "agent" && line.message.error?.code === -32000),
      "the auth_required answer is traced",
    );
    assert.ok(
      lines.some((line) => line.from === "agent" && line.message.method === "session/update"),
      "notifications from the agent are traced",
    );
    const newSession = lines.filter((line) => line.message.method === "session/new");
    assert.deepEqual(newSession.at(-1)!.message.params!.mcpServers, servers);
  },
);

test("--auth picks the method among several, and :auth uses the same helpers", { timeout: 15_000 }, async () => {
  const run = await chat(
    ["--auth", "other", "--", process.execPath, execAgent, "--exec-agent", "--require-auth"],
    "auth\n:auth token\nauth\n:auth nope\n",
  );
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /authenticating with "other" \(Other login\)\nsession exec-1/);
  assert.match(run.stdout, /authenticated with other[\s\S]*authenticated with token[\s\S]*authenticated with token/);
  assert.match(run.stdout, /:auth failed: the agent has no authentication method "nope"/);
});

test(
  "auth_required with two methods and no --auth: the chat says what to do and stays up",
  { timeout: 15_000 },
  async () => {
    const run = await chat(
      ["--", process.execPath, execAgent, "--exec-agent", "--require-auth"],
      ":auth token\n:new\nauth\n",
    );
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /could not start a session: the agent requires authentication; choose a method with --auth ID/,
    );
    assert.match(run.stdout, /new session exec-1[\s\S]*authenticated with token/);
  },
);

test("--permissions deny-all answers the agent's permission requests without asking", { timeout: 15_000 }, async () => {
  const run = await chat(
    ["--permissions", "deny-all", "--", process.execPath, sdkAgent, "--serve"],
    "write it please\n",
  );
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.doesNotMatch(run.stdout, /\? Allow/);
  assert.match(run.stdout, /The file was left alone/);
  assert.equal(existsSync(join(cwd, "hello.txt")), false);
});

test(
  "a bad --mcp-config: a clear error naming the file and the field, exit code 2, no agent started, no trace written",
  { timeout: 15_000 },
  async () => {
    const config = join(cwd, "bad-mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { files: { args: ["--ro"] } } }));
    const trace = join(cwd, "bad-trace.ndjson");
    const run = await chat(
      ["--trace", trace, "--mcp-config", config, "--", process.execPath, execAgent, "--exec-agent"],
      "hello\n",
    );
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      `acp chat: --mcp-config ${config}: mcpServers.files.command: expected the server's command as a ` +
        `non-empty string\n`,
    );
    assert.doesNotMatch(run.stdout, /starting/);
    assert.equal(existsSync(trace), false);
    const missing = await chat(["--mcp-config", join(cwd, "none.json")], "");
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^acp chat: --mcp-config: cannot read .*none\.json: ENOENT/);
  },
);
