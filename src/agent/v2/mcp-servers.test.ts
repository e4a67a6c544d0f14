import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import * as official from "@agentclientprotocol/sdk/experimental/v2";
import * as officialUnstable from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { RequestError } from "../../jsonrpc/index.js";
import {
  assertSupportedMcpServers,
  assertSupportedUnstableMcpServers,
  V2_MCP_TRANSPORTS,
  V2_UNSTABLE_MCP_TRANSPORTS,
} from "./mcp-servers.js";

type Check = (servers: never, capabilities: never) => void;

/** The repository root: the nearest folder up from here with schema/v2 (this runs from src/ or from dist/src/). */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      readFileSync(join(dir, "schema/v2/schema.json"));
      return dir;
    } catch {
      const parent = resolve(dir, "..");
      if (parent === dir) throw new Error("schema/v2/schema.json not found above this test");
      dir = parent;
    }
  }
}

const stdio = (name: string) => ({ type: "stdio", name, command: "/bin/server", args: [], env: [] });
const http = (name: string) => ({ type: "http", name, url: "https://example.test/mcp", headers: [] });
const sse = (name: string) => ({ type: "sse", name, url: "https://example.test/sse", headers: [] });
const acp = (name: string) => ({ type: "acp", name, id: "mcp-1" });

/** How a check ends: "ok", or the -32602's data. */
function outcome(check: Check, servers: unknown, capabilities: unknown): unknown {
  try {
    check(servers as never, capabilities as never);
    return "ok";
  } catch (error) {
    assert.ok(error instanceof Error && (error as { code?: number }).code === -32602, `a -32602, not ${String(error)}`);
    return (error as { data?: unknown }).data;
  }
}

const cases: Array<[string, unknown, unknown]> = [
  ["no servers", [], null],
  ["servers undefined", undefined, undefined],
  ["stdio advertised", [stdio("a")], { stdio: {} }],
  ["stdio and http advertised", [stdio("a"), http("b")], { stdio: {}, http: {} }],
  ["http not advertised", [stdio("a"), http("b")], { stdio: {} }],
  ["advertised as null", [http("b")], { http: null }],
  ["no capabilities", [stdio("a")], undefined],
  ["sse, even if advertised", [sse("s")], { sse: {}, stdio: {} }],
  ["acp", [acp("x")], { acp: {} }],
  ["a custom transport", [{ type: "_acme", name: "c" }], { _acme: {} }],
  ["_meta is not a transport", [{ type: "_meta", name: "m" }], { _meta: {} }],
  ["a duplicate name", [stdio("same"), http("same")], { stdio: {}, http: {} }],
  ["the first problem wins", [http("x"), stdio("x")], { stdio: {} }],
  ["a nameless server", [{ type: "stdio" }, { type: "stdio" }], { stdio: {} }],
];

test(
  "assertSupportedMcpServers: only advertised (non-null) stable transports, unique names; -32602 naming the " +
    "problem",
  () => {
    const data = Object.fromEntries(
      cases.map(([name, servers, capabilities]) => [name, outcome(assertSupportedMcpServers, servers, capabilities)]),
    );
    assert.deepEqual(data, {
      "no servers": "ok",
      "servers undefined": "ok",
      "stdio advertised": "ok",
      "stdio and http advertised": "ok",
      "http not advertised": { type: "http" },
      "advertised as null": { type: "http" },
      "no capabilities": { type: "stdio" },
      "sse, even if advertised": { type: "sse" },
      acp: { type: "acp" },
      "a custom transport": { type: "_acme" },
      "_meta is not a transport": { type: "_meta" },
      "a duplicate name": { name: "same" },
      "the first problem wins": { type: "http" },
      "a nameless server": "ok",
    });
    assert.throws(
      () => assertSupportedMcpServers([stdio("a"), stdio("a")] as never, { stdio: {} }),
      (error: unknown) => error instanceof RequestError && /Duplicate MCP server name a/.test(error.message),
    );
    assert.throws(
      () => assertSupportedMcpServers([sse("s")] as never, { sse: {} } as never),
      /Unsupported MCP server transport sse/,
    );
  },
);

test("the unstable check also takes MCP-over-ACP (acp) when advertised", () => {
  assert.equal(outcome(assertSupportedUnstableMcpServers, [acp("x"), stdio("y")], { acp: {}, stdio: {} }), "ok");
  assert.deepEqual(outcome(assertSupportedUnstableMcpServers, [acp("x")], { stdio: {} }), { type: "acp" });
  assert.deepEqual(outcome(assertSupportedUnstableMcpServers, [sse("s")], { sse: {} }), { type: "sse" });
});

test("the same answers as the official assertSupportedMcpServers, stable and unstable", () => {
  for (const [name, servers, capabilities] of [
    ...cases,
    ["acp advertised", [acp("x")], { acp: {} }] as [string, unknown, unknown],
  ]) {
    assert.deepEqual(
      outcome(assertSupportedMcpServers, servers, capabilities),
      outcome(official.assertSupportedMcpServers as Check, servers, capabilities),
      name,
    );
    assert.deepEqual(
      outcome(assertSupportedUnstableMcpServers, servers, capabilities),
      outcome(officialUnstable.assertSupportedMcpServers as Check, servers, capabilities),
      `${name} (unstable)`,
    );
  }
});

test(
  "V2_MCP_TRANSPORTS and V2_UNSTABLE_MCP_TRANSPORTS are " + "McpCapabilities' properties (but _meta) in schema/v2",
  () => {
    const transports = (file: string) => {
      const schema = JSON.parse(readFileSync(join(repoRoot(), "schema/v2", file), "utf8")) as {
        $defs: Record<string, { properties: object }>;
      };
      return Object.keys(schema.$defs.McpCapabilities!.properties).filter((key) => key !== "_meta");
    };
    assert.deepEqual([...V2_MCP_TRANSPORTS].sort(), transports("schema.json").sort());
    assert.deepEqual([...V2_UNSTABLE_MCP_TRANSPORTS].sort(), transports("schema.unstable.json").sort());
    assert.ok(V2_UNSTABLE_MCP_TRANSPORTS.includes("acp") && !V2_MCP_TRANSPORTS.includes("acp"));
  },
);
