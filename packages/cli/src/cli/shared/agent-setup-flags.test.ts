import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import {
  loadMcpServers,
  noAgentSetupFlags,
  openTraceFlag,
  parsePermissionsFlag,
  setAgentSetupFlag,
} from "./agent-setup-flags.js";
import { resolveCommand } from "./resolve-command.js";
import { UsageError } from "./usage-error.js";

const dir = mkdtempSync(join(tmpdir(), "acpkit-setup-flags-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("the shared flags are set and checked; other flags are left to the command", () => {
  const flags = noAgentSetupFlags();
  assert.equal(setAgentSetupFlag(flags, "--trace", "t.ndjson"), true);
  assert.equal(setAgentSetupFlag(flags, "--mcp", "a=/bin/a"), true);
  assert.equal(setAgentSetupFlag(flags, "--permissions", "rules:r.json"), true);
  assert.equal(setAgentSetupFlag(flags, "--cwd", "/w"), false);
  assert.deepEqual(flags, {
    trace: "t.ndjson",
    mcpConfig: undefined,
    mcp: ["a=/bin/a"],
    auth: undefined,
    permissions: { rulesFile: "r.json" },
  });
  assert.throws(
    () => setAgentSetupFlag(flags, "--auth", ""),
    /--auth needs a non-empty value: an authentication method id/,
  );
  assert.throws(() => setAgentSetupFlag(flags, "--mcp", "=x"), /--mcp expects NAME=COMMAND or NAME=URL/);
  assert.deepEqual(
    [parsePermissionsFlag("deny-all"), parsePermissionsFlag("rules:x.json")],
    ["deny-all", { rulesFile: "x.json" }],
  );
  assert.throws(() => parsePermissionsFlag("rules:"), /needs a file/);
});

test("MCP servers: --mcp-config first, then --mcp, commands resolved against the cwd; bad files name the field", () => {
  const file = join(dir, "mcp.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        files: { command: "./files-server", args: ["--ro"], env: { K: "v" } },
        web: { url: "https://example.com/mcp" },
      },
    }),
  );
  assert.deepEqual(loadMcpServers({ mcpConfig: file, mcp: ["extra=https://x.test/mcp"] }, "/work"), [
    { name: "files", command: "/work/files-server", args: ["--ro"], env: [{ name: "K", value: "v" }] },
    { type: "http", name: "web", url: "https://example.com/mcp", headers: [] },
    { type: "http", name: "extra", url: "https://x.test/mcp", headers: [] },
  ]);
  writeFileSync(file, JSON.stringify({ mcpServers: { files: { args: [] } } }));
  assert.throws(
    () => loadMcpServers({ mcpConfig: file, mcp: [] }, "/work"),
    (error) =>
      error instanceof UsageError &&
      error.message ===
        `--mcp-config ${file}: mcpServers.files.command: expected the server's command as a non-empty string`,
  );
  writeFileSync(file, "{ not json");
  assert.throws(() => loadMcpServers({ mcpConfig: file, mcp: [] }, "/work"), /not valid JSON/);
  assert.throws(
    () => loadMcpServers({ mcpConfig: join(dir, "none.json"), mcp: [] }, "/work"),
    /--mcp-config: cannot read .*none\.json/,
  );
  assert.deepEqual(loadMcpServers({ mcpConfig: undefined, mcp: [] }, "/work"), []);
});

test("resolveCommand: absolute kept, relative against the cwd, bare names through PATH, unknown ones unchanged", () => {
  assert.equal(resolveCommand("/bin/x", "/w"), "/bin/x");
  assert.equal(resolveCommand("./x", "/w"), "/w/x");
  assert.equal(resolveCommand("node", "/w", process.env.PATH).endsWith("/node"), true);
  assert.equal(resolveCommand("no-such-command-here", "/w", dir), "no-such-command-here");
});

test(
  "--trace: a cassette (header, then one timestamped line per tap event until closed); an unwritable path is a " +
    "usage error",
  () => {
    assert.equal(openTraceFlag(undefined), undefined);
    const path = join(dir, "trace.ndjson");
    const trace = openTraceFlag(path)!;
    trace.listener({ time: 0, direction: "out", message: { jsonrpc: "2.0", id: 1, method: "initialize", params: {} } });
    trace.close();
    trace.listener({ time: 1, direction: "in", message: { jsonrpc: "2.0", id: 1, result: {} } });
    const [header, ...frames] = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.equal(header.acpCassette, 1);
    assert.equal(header.tool.name, "acp --trace");
    assert.deepEqual(frames, [
      { time: 0, from: "client", message: { jsonrpc: "2.0", id: 1, method: "initialize", params: {} } },
    ]);
    assert.throws(() => openTraceFlag(join(dir, "no-dir", "t.ndjson")), /--trace: cannot write/);
  },
);
