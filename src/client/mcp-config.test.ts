import assert from "node:assert/strict";
import { test } from "node:test";
import { McpConfigError, parseMcpConfig, parseMcpFlag, supportedMcpServers } from "./mcp-config.js";

test("Claude Desktop / Cursor shape: stdio with env object, http with headers, url without type is http", () => {
  const servers = parseMcpConfig(
    JSON.stringify({
      mcpServers: {
        fs: {
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
          env: { DEBUG: "1", TOKEN: "x" },
        },
        remote: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer t" } },
        cursor: { url: "https://example.com/other" },
        events: { type: "sse", url: "http://localhost:3000/sse" },
        off: { command: "nope", disabled: true },
      },
    }),
    { resolveCommand: (command) => (command === "npx" ? "/usr/bin/npx" : command) },
  );
  assert.deepEqual(servers, [
    {
      name: "fs",
      command: "/usr/bin/npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
      env: [
        { name: "DEBUG", value: "1" },
        { name: "TOKEN", value: "x" },
      ],
    },
    {
      type: "http",
      name: "remote",
      url: "https://example.com/mcp",
      headers: [{ name: "Authorization", value: "Bearer t" }],
    },
    { type: "http", name: "cursor", url: "https://example.com/other", headers: [] },
    { type: "sse", name: "events", url: "http://localhost:3000/sse", headers: [] },
  ]);
});

test("VS Code `servers` and Zed `context_servers` (nested command), streamable-http", () => {
  assert.deepEqual(
    parseMcpConfig({
      servers: { a: { type: "stdio", command: "/bin/a" }, b: { type: "streamable-http", url: "http://h/mcp" } },
    }),
    [
      { name: "a", command: "/bin/a", args: [], env: [] },
      { type: "http", name: "b", url: "http://h/mcp", headers: [] },
    ],
  );
  assert.deepEqual(
    parseMcpConfig({ context_servers: { z: { command: { path: "/bin/z", args: ["--x"], env: { A: "b" } } } } }),
    [{ name: "z", command: "/bin/z", args: ["--x"], env: [{ name: "A", value: "b" }] }],
  );
});

test("precise errors name the field", () => {
  const fails = (input: unknown, pattern: RegExp) =>
    assert.throws(
      () => parseMcpConfig(input),
      (error) => error instanceof McpConfigError && pattern.test(error.message),
    );
  fails("{nope", /^\(file\): not valid JSON/);
  fails("[]", /^\(file\): expected a JSON object/);
  fails({ other: {} }, /no "mcpServers" object/);
  fails({ mcpServers: [] }, /^mcpServers: expected an object/);
  fails({ mcpServers: { a: { args: [] } } }, /^mcpServers\.a\.command: expected the server's command/);
  fails(
    { mcpServers: { a: { command: "x", args: ["ok", 3] } } },
    /^mcpServers\.a\.args\[1\]: expected a string, got 3/,
  );
  fails(
    { mcpServers: { a: { command: "x", env: { PORT: 80 } } } },
    /^mcpServers\.a\.env\.PORT: expected a string value, got 80 \(quote it\)/,
  );
  fails({ mcpServers: { a: { type: "websocket", url: "ws://x" } } }, /^mcpServers\.a\.type: unknown type "websocket"/);
  fails({ mcpServers: { a: { type: "http", url: "ftp://x" } } }, /^mcpServers\.a\.url: expected an http/);
  fails(
    { mcpServers: { a: { type: "http", url: "http://x", headers: "h" } } },
    /^mcpServers\.a\.headers: expected an object/,
  );
});

test("--mcp NAME=COMMAND and NAME=URL; supported filters by the agent's mcpCapabilities", () => {
  const split = (line: string) => line.split(" ");
  assert.deepEqual(parseMcpFlag("git=/bin/git-mcp --repo .", split), {
    name: "git",
    command: "/bin/git-mcp",
    args: ["--repo", "."],
    env: [],
  });
  assert.deepEqual(parseMcpFlag("web=https://x/mcp", split), {
    type: "http",
    name: "web",
    url: "https://x/mcp",
    headers: [],
  });
  assert.throws(() => parseMcpFlag("nothing", split), /--mcp: expected NAME=COMMAND/);
  const servers = parseMcpConfig({
    mcpServers: { a: { command: "/a" }, h: { url: "http://h" }, s: { type: "sse", url: "http://s" } },
  });
  assert.deepEqual(
    supportedMcpServers(servers, {}).supported.map((s) => s.name),
    ["a"],
  );
  assert.deepEqual(
    supportedMcpServers(servers, { mcpCapabilities: { http: true } }).unsupported.map((s) => s.name),
    ["s"],
  );
  assert.deepEqual(supportedMcpServers(servers, { mcpCapabilities: { http: true, sse: true } }).supported.length, 3);
});
