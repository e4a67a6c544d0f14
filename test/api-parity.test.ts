import assert from "node:assert/strict";
import { test } from "node:test";
import * as official from "@agentclientprotocol/sdk";
import * as acpkit from "../src/entries/index.js";

// Every value and type name of every official entry is checked by test/export-parity.test.ts.

test("the method-name constants match the official ones for every method of our schema", () => {
  for (const [name, table] of [
    ["AGENT_METHODS", acpkit.AGENT_METHODS],
    ["CLIENT_METHODS", acpkit.CLIENT_METHODS],
    ["PROTOCOL_METHODS", acpkit.PROTOCOL_METHODS],
  ] as const) {
    const theirs = (official as unknown as Record<string, Record<string, string>>)[name]!;
    for (const [key, method] of Object.entries(table)) assert.equal(theirs[key], method, `${name}.${key}`);
  }
  assert.equal(acpkit.PROTOCOL_VERSION, official.PROTOCOL_VERSION);
});

test("RequestError builds the same errors as the official one", () => {
  const cases: Array<[string, unknown[]]> = [
    ["parseError", [{ a: 1 }, "x"]],
    ["invalidRequest", [undefined, "bad"]],
    ["methodNotFound", ["session/x"]],
    ["invalidParams", [{ issues: [] }]],
    ["internalError", []],
    ["requestCancelled", []],
    ["authRequired", [undefined, "login"]],
    ["resourceNotFound", ["file:///x"]],
    ["sessionNotFound", ["sess-1"]],
    ["unsupportedProtocolVersion", [3, [1]]],
  ];
  for (const [factory, args] of cases) {
    const ours = (acpkit.RequestError as unknown as Record<string, (...a: unknown[]) => acpkit.RequestError>)[factory]!(
      ...args,
    );
    const theirs = (
      official.RequestError as unknown as Record<
        string,
        (...a: unknown[]) => { code: number; message: string; data?: unknown }
      >
    )[factory]!(...args);
    assert.equal(ours.code, theirs.code, factory);
    assert.equal(ours.message, theirs.message, factory);
    assert.deepEqual(ours.data, theirs.data, factory);
  }
});
