import assert from "node:assert/strict";
import { test } from "node:test";
import { newConnectionId, newNodeId, newReaderToken, plausibleConnectionId } from "./ids.js";

test("connection ids: 24 base64url characters (144 random bits), never the same twice", () => {
  const ids = new Set(Array.from({ length: 1000 }, () => newConnectionId()));
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.match(id, /^[A-Za-z0-9_-]{24}$/);
  // 144 bits: every one of the 24 characters carries 6 random bits; over 1000 ids each position takes many values.
  for (let i = 0; i < 24; i++) assert.ok(new Set([...ids].map((id) => id[i])).size > 40, `position ${i}`);
});

test("node ids carry the name and 72 random bits; reader tokens are random", () => {
  assert.match(newNodeId("web-1"), /^web-1-[A-Za-z0-9_-]{12}$/);
  assert.match(newNodeId(), /^[A-Za-z0-9_-]{12}$/);
  assert.notEqual(newNodeId("a"), newNodeId("a"));
  assert.notEqual(newReaderToken(), newReaderToken());
});

test("only plausible connection ids are looked up", () => {
  assert.equal(plausibleConnectionId(newConnectionId()), true);
  assert.equal(plausibleConnectionId(""), false);
  assert.equal(plausibleConnectionId("x".repeat(129)), false);
});
