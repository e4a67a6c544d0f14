import assert from "node:assert/strict";
import { test } from "node:test";
import { ConnectionClosedError } from "./local-errors.js";

test(
  "ConnectionClosedError: one period between the detail and the advice, even when the detail ends a " + "sentence",
  () => {
    const quoted = new ConnectionClosedError("the transport failed: The ACP server closed the WebSocket (1001).");
    assert.equal(
      quoted.message,
      "ACP connection closed: the transport failed: The ACP server closed the WebSocket (1001). " +
        "Open a new connection to continue.",
    );
    assert.equal(
      new ConnectionClosedError("the peer closed the connection (end of input)").message,
      "ACP connection closed: the peer closed the connection (end of input). Open a new connection to continue.",
    );
  },
);
