import assert from "node:assert/strict";
import { test } from "node:test";
import {
  bearerSubprotocol,
  idKey,
  methodRequiresSessionHeader,
  sessionIdOfParams,
  tokenFromSubprotocols,
  WEBSOCKET_SUBPROTOCOL,
} from "./http-protocol.js";

test("a bearer token survives the subprotocol round trip, whatever its characters", () => {
  for (const token of ["abc", "with space/and+plus=", "ünïcødé 🔑", ""]) {
    const protocol = bearerSubprotocol(token);
    assert.match(protocol, /^acp\.bearer\.[A-Za-z0-9_-]*$/, "only RFC 6455 token characters");
    assert.equal(tokenFromSubprotocols([WEBSOCKET_SUBPROTOCOL, protocol]), token);
  }
});

test("subprotocol lists without a valid bearer entry carry no token", () => {
  assert.equal(tokenFromSubprotocols([]), undefined);
  assert.equal(tokenFromSubprotocols(["acp"]), undefined);
  assert.equal(tokenFromSubprotocols(["acp.bearer.***"]), undefined);
  assert.equal(tokenFromSubprotocols(["acp.bearer.__8"]), undefined, "not UTF-8");
});

test("session scoping, session ids and id keys", () => {
  assert.equal(methodRequiresSessionHeader("session/prompt"), true);
  assert.equal(methodRequiresSessionHeader("session/new"), false);
  assert.equal(methodRequiresSessionHeader("initialize"), false);
  assert.equal(sessionIdOfParams({ sessionId: "s1" }), "s1");
  assert.equal(sessionIdOfParams({ sessionId: 1 }), undefined);
  assert.equal(sessionIdOfParams(null), undefined);
  assert.notEqual(idKey(1), idKey("1"));
  assert.equal(idKey({}), undefined);
});
