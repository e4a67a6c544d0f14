import assert from "node:assert/strict";
import { test } from "node:test";
import { methods as officialMethods } from "@agentclientprotocol/sdk";
import { METHOD_TABLE } from "../protocol/index.js";
import { camelCase, methods, unstableMethods } from "./methods.js";

type Tree = { [key: string]: Tree | string };

function leaves(tree: Tree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(path, value);
    else for (const [p, v] of leaves(value, path)) out.set(p, v);
  }
  return out;
}

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

test("methods equals the official SDK's methods, key for key, for every method of our stable schema", () => {
  const ours = leaves(methods as unknown as Tree);
  const stableNames = new Set([...METHOD_TABLE.map((info) => info.method), "$/cancel_request"]);
  const official = new Map(
    [...leaves(officialMethods as unknown as Tree)].filter(([, method]) => stableNames.has(method)),
  );
  assert.deepEqual(ours, official);
  assert.equal(ours.size, 25); // 13 agent methods, 11 client methods, $/cancel_request
});

test("the type of methods is the official type, literal for literal", () => {
  const same: Equal<typeof methods, typeof officialMethods> = true;
  const literal: "session/set_config_option" = methods.agent.session.setConfigOption;
  assert.equal(same, true);
  assert.equal(literal, "session/set_config_option");
  assert.equal(methods.client.fs.readTextFile, "fs/read_text_file");
  assert.equal(methods.protocol.cancelRequest, "$/cancel_request");
});

test("unstableMethods adds the unstable methods to the stable ones", () => {
  const stable = leaves(methods as unknown as Tree);
  const unstable = leaves(unstableMethods as unknown as Tree);
  for (const [path, method] of stable) assert.equal(unstable.get(path), method, path);
  assert.equal(unstableMethods.agent.session.fork, "session/fork");
  assert.equal(unstableMethods.agent.session.setTitle, "session/set_title");
  assert.equal(unstableMethods.client.auth.statusUpdate, "auth/status_update");
  assert.ok(unstable.size > stable.size);
  assert.ok(Object.isFrozen(methods.agent.session));
});

test("camelCase turns snake_case segments into camelCase", () => {
  assert.equal(camelCase("wait_for_exit"), "waitForExit");
  assert.equal(camelCase("didOpen"), "didOpen");
  assert.equal(camelCase("new"), "new");
});
