/**
 * acpkit's `AgentProtocolRouter` against the official SDK 2.4.0's, message for message: the same first messages
 * go through both (each with capture connectors behind it), and what each router answers itself (id and code) and
 * what it forwards to which implementation must be the same.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as official from "@agentclientprotocol/sdk/experimental/v2";
import { wirePeer } from "../acp/v2/testing/wire-peer.js";
import { agentProtocolRouter } from "./protocol-router.js";
import { captureConnector, ROUTED_NOTICE } from "./testing/capture-connector.js";

const info = { name: "c", version: "1" };
const initialize = (id: unknown, params: unknown) => ({ jsonrpc: "2.0", id, method: "initialize", params });

/** Sequences of messages sent before (and up to) the one that gets routed. */
const scenarios: Record<string, unknown[]> = {
  "v1 exactly": [
    initialize(0, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      clientInfo: info,
    }),
  ],
  "v1 with nulls and malformed fields": [
    initialize(0, { protocolVersion: 1, clientCapabilities: { fs: 5, elicitation: null }, clientInfo: null }),
  ],
  "v1 without capabilities": [initialize(0, { protocolVersion: 1 })],
  "version 0": [initialize(0, { protocolVersion: 0 })],
  "v2 exactly": [initialize(0, { protocolVersion: 2, info, capabilities: { elicitation: { form: {}, url: null } } })],
  "v2 without info": [initialize(0, { protocolVersion: 2 }), initialize(1, { protocolVersion: 1 })],
  "v2 with malformed capabilities": [
    initialize("a", { protocolVersion: 2, info, capabilities: { auth: 5, elicitation: "x" }, _meta: null }),
  ],
  "version 3 without info": [
    initialize(0, { protocolVersion: 3, capabilities: { auth: { terminal: {}, _meta: { t: 1 } } }, _meta: { m: 1 } }),
  ],
  "version 3 with a malformed info": [initialize(0, { protocolVersion: 3, info: { name: 5 } })],
  "version 65535": [initialize(0, { protocolVersion: 65535, info })],
  "invalid versions first": [
    initialize(0, { protocolVersion: "1" }),
    initialize(1, { protocolVersion: 65536 }),
    initialize(2, { protocolVersion: 1.25 }),
    initialize(3, null),
    initialize(4, { protocolVersion: 2, info }),
  ],
  "junk first": [
    5,
    [initialize(0, { protocolVersion: 2, info })],
    { jsonrpc: "2.0", method: "session/cancel", params: {} },
    { jsonrpc: "2.0", id: 9, result: null },
    { jsonrpc: "2.0", id: 10 },
    { id: 11, method: "initialize", params: { protocolVersion: 2, info } },
    { jsonrpc: "2.0", id: 12, method: "session/new", params: {} },
    initialize(13, { protocolVersion: 2, info }),
  ],
  "fractional and null ids": [
    initialize(0.5, { protocolVersion: 2, info }),
    initialize(null, { protocolVersion: 3, info }),
    initialize(0.5, { protocolVersion: 1 }),
  ],
};

type RouterLike = {
  withV1(agent: unknown): RouterLike;
  withV2(agent: unknown): RouterLike;
  connect(stream: unknown): unknown;
};

/**
 * Runs one scenario: sends its messages, then a sentinel request; reads the client's side until the sentinel's
 * answer (nothing was routed) or the capture's routed notice (the sentinel then went to the implementation). Returns
 * the router's own answers (id, code), and which implementation got which first message.
 */
async function run(router: RouterLike, configured: "12" | "1" | "2", messages: unknown[]) {
  const v1 = captureConnector();
  const v2 = captureConnector();
  if (configured.includes("1")) router.withV1(v1);
  if (configured.includes("2")) router.withV2(v2);
  const peer = wirePeer();
  router.connect(peer.stream);
  const answers: unknown[] = [];
  const reading = (async () => {
    for (;;) {
      const message = await peer.next();
      if (message.method === ROUTED_NOTICE) return;
      answers.push([message.id, (message.error as { code?: number } | undefined)?.code]);
      if (message.id === "sentinel") return;
    }
  })();
  for (const message of [...messages, { jsonrpc: "2.0", id: "sentinel", method: "sentinel/request" }])
    await peer.send(message);
  await reading;
  const routed = [...v1.connections.map(() => "v1"), ...v2.connections.map(() => "v2")];
  const forwarded = await Promise.all([...v1.connections, ...v2.connections].map((c) => c.first));
  await peer.end();
  return { answers, routed, forwarded };
}

for (const configured of ["12", "1", "2"] as const) {
  for (const [name, messages] of Object.entries(scenarios)) {
    test(`router parity (${configured === "12" ? "v1 and v2" : `v${configured} only`}): ${name}`, async () => {
      const theirs = await run(official.agentProtocolRouter() as unknown as RouterLike, configured, messages);
      const ours = await run(agentProtocolRouter() as unknown as RouterLike, configured, messages);
      assert.deepEqual(ours, theirs);
    });
  }
}
