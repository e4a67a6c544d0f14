/**
 * Export parity of the drop-in entries with the official SDK 2.4.0: `@acpkit/sdk/experimental/server` and
 * `@acpkit/sdk/experimental/node` export every value `@agentclientprotocol/sdk/experimental/server` and
 * `/experimental/node` export (same names, same constant values), and every type they export (checked by the compiler
 * below), so code written against the official entries compiles and runs with acpkit's in the import.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as officialNode from "@agentclientprotocol/sdk/experimental/node";
import type * as officialServer from "@agentclientprotocol/sdk/experimental/server";
import type * as node from "./node.js";
import type * as server from "./server.js";

// Every official type name exists here (a missing one fails the build).
export type ServerTypes = [
  server.AcpServerOptions,
  server.AgentFactory,
  server.ConnectionLimits,
  server.HandleRequestOptions,
  server.PrepareWebSocketUpgradeOptions,
  server.PreparedWebSocketUpgrade,
];
export type NodeTypes = [node.NodeHttpHandlerOptions, node.NodeWebSocketUpgradeServer];

// Official-shaped values are accepted where acpkit's are expected.
export const acceptsOfficialLimits = (limits: officialServer.ConnectionLimits): server.ConnectionLimits => limits;
export const acceptsOfficialHandlerOptions = (
  options: officialNode.NodeHttpHandlerOptions,
): node.NodeHttpHandlerOptions => options;
export const acceptsOfficialRequestOptions = (
  options: officialServer.HandleRequestOptions,
): server.HandleRequestOptions => options as server.HandleRequestOptions;

const sorted = (module: object) => Object.keys(module).sort();

test("@acpkit/sdk/experimental/server exports every value of the official entry, with the same constants", async () => {
  const official = await import("@agentclientprotocol/sdk/experimental/server");
  const ours = await import("./server.js");
  assert.deepEqual(sorted(ours), sorted(official));
  for (const name of [
    "DEFAULT_MAX_BUFFERED_BYTES",
    "DEFAULT_MAX_BUFFERED_SESSION_STREAMS",
    "DEFAULT_MAX_ID_LENGTH",
    "DEFAULT_MAX_OUTPUT_STALL_MS",
  ] as const) {
    assert.equal(ours[name], official[name], name);
  }
  assert.equal(typeof ours.AcpServer.prototype.handleRequest, "function");
  assert.equal(typeof ours.AcpServer.prototype.prepareWebSocketUpgrade, "function");
  assert.equal(typeof ours.AcpServer.prototype.close, "function");
});

test("@acpkit/sdk/experimental/node exports every value of the official entry, with the same constants", async () => {
  const official = await import("@agentclientprotocol/sdk/experimental/node");
  const ours = await import("./node.js");
  assert.deepEqual(sorted(ours), sorted(official));
  assert.equal(ours.DEFAULT_MAX_REQUEST_BODY_BYTES, official.DEFAULT_MAX_REQUEST_BODY_BYTES);
});

test("the package exports both entries", async () => {
  const { readFileSync } = await import("node:fs");
  const pkg = JSON.parse(readFileSync(new URL("../../../../package.json", import.meta.url), "utf8")) as {
    exports: Record<string, unknown>;
  };
  assert.ok(pkg.exports["./experimental/server"]);
  assert.ok(pkg.exports["./experimental/node"]);
});
