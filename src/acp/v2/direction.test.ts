import assert from "node:assert/strict";
import { test } from "node:test";
import { v2Flavor, v2UnstableFlavor } from "../v2-flavors.js";
import { assertNotBuiltIn, assertOutgoingDirection } from "./direction.js";

test(
  "assertOutgoingDirection: v2 methods only toward the side that handles them; extensions and $/cancel_request " +
    "pass",
  () => {
    assert.doesNotThrow(() => assertOutgoingDirection(v2Flavor, "client", "request", "session/new"));
    assert.doesNotThrow(() => assertOutgoingDirection(v2Flavor, "agent", "request", "session/request_permission"));
    assert.doesNotThrow(() => assertOutgoingDirection(v2Flavor, "agent", "notification", "session/update"));
    assert.doesNotThrow(() => assertOutgoingDirection(v2Flavor, "client", "notification", "session/cancel"));
    for (const side of ["agent", "client"] as const) {
      assert.doesNotThrow(() => assertOutgoingDirection(v2Flavor, side, "notification", "$/cancel_request"));
      assert.doesNotThrow(() => assertOutgoingDirection(v2Flavor, side, "request", "_acme/x"));
      assert.doesNotThrow(
        () => assertOutgoingDirection(v2Flavor, side, "request", "session/load"),
        "a v1 method is an unrecognized method in v2",
      );
    }
    assert.throws(
      () => assertOutgoingDirection(v2Flavor, "agent", "request", "session/new"),
      /'session\/new' is not valid in this direction \(the client does not handle it\)/,
    );
    assert.throws(() => assertOutgoingDirection(v2Flavor, "client", "notification", "session/update"), TypeError);
    assert.throws(
      () => assertOutgoingDirection(v2Flavor, "client", "request", "session/cancel"),
      /request method 'session\/cancel'/,
      "a notification sent as a request",
    );
    assert.throws(() => assertOutgoingDirection(v2Flavor, "client", "request", "$/cancel_request"), TypeError);
  },
);

test("assertNotBuiltIn: a parser for a v2 method is refused, with advice that fits the side", () => {
  assert.doesNotThrow(() => assertNotBuiltIn(v2Flavor, "agent", "request", "_acme/x"));
  assert.doesNotThrow(() => assertNotBuiltIn(v2Flavor, "agent", "request", "session/load"));
  assert.throws(
    () => assertNotBuiltIn(v2Flavor, "agent", "request", "session/new"),
    /parser for 'session\/new'; register it without a parser/,
  );
  assert.throws(
    () => assertNotBuiltIn(v2Flavor, "client", "notification", "session/update"),
    /register it without a parser/,
  );
  assert.throws(
    () => assertNotBuiltIn(v2Flavor, "agent", "request", "session/request_permission"),
    /a request the client handles, not the agent/,
  );
  assert.throws(
    () => assertNotBuiltIn(v2Flavor, "client", "request", "session/new"),
    /a request the agent handles, not the client/,
  );
  assert.throws(() => assertNotBuiltIn(v2Flavor, "agent", "request", "$/cancel_request"), /the connection handles it/);
  const unstableOnly = v2UnstableFlavor.methods
    .map((m) => m.method)
    .find((method) => !v2Flavor.methods.some((m) => m.method === method));
  assert.ok(unstableOnly, "the unstable set has methods the stable one lacks");
  assert.doesNotThrow(
    () => assertNotBuiltIn(v2Flavor, "agent", "request", unstableOnly),
    "not built in where it is not part of the flavor",
  );
  assert.throws(() => assertNotBuiltIn(v2UnstableFlavor, "agent", "request", unstableOnly), TypeError);
});
