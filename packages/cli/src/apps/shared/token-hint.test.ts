import assert from "node:assert/strict";
import { test } from "node:test";
import { withTokenHint } from "./token-hint.js";

test("a 401 says to pass --token or set ACP_TOKEN, once; other messages are unchanged", () => {
  const refused =
    "The ACP server at ws://127.0.0.1:1/acp refused the WebSocket upgrade with HTTP 401. Check the token.";
  const hinted = withTokenHint(refused);
  assert.equal(
    hinted,
    "The ACP server at ws://127.0.0.1:1/acp refused the WebSocket upgrade with HTTP 401. Check the token. " +
      "Pass --token or set ACP_TOKEN (acp serve printed the token when it started).",
  );
  assert.equal(withTokenHint(hinted), hinted);
  assert.equal(withTokenHint("HTTP 403 Forbidden: origin not allowed"), "HTTP 403 Forbidden: origin not allowed");
});
