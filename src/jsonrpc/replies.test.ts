import assert from "node:assert/strict";
import { test } from "node:test";
import { JsonRpcConnection } from "./connection.js";
import { silentLogger } from "./logger.js";
import { answerWithNullId, answersWithNullId } from "./replies.js";
import { RequestError } from "./request-error.js";
import { ScriptedLink } from "./testing/scripted-link.js";

test(
  "an error marked with answerWithNullId is sent with id null " + "(thrown or rejected); unmarked errors keep the id",
  async () => {
    const link = new ScriptedLink();
    new JsonRpcConnection(
      link,
      {
        request: (method) => {
          const error = RequestError.invalidRequest(undefined, "unusable id");
          if (method === "sync") throw answerWithNullId(error);
          return Promise.reject(method === "async" ? answerWithNullId(error) : error);
        },
        notification: () => {},
      },
      { logger: silentLogger },
    );
    link.inject({ jsonrpc: "2.0", id: 1.5, method: "sync" });
    link.inject({ jsonrpc: "2.0", id: 2.5, method: "async" });
    link.inject({ jsonrpc: "2.0", id: 3.5, method: "plain" });
    await link.waitForSent(3);
    assert.deepEqual(
      link.sent.map((message) => (message as { id: unknown }).id),
      [null, null, 3.5],
    );
  },
);

test("answersWithNullId: only errors marked by answerWithNullId", () => {
  const marked = answerWithNullId(RequestError.invalidRequest());
  assert.equal(answersWithNullId(marked), true);
  assert.equal(answersWithNullId(RequestError.invalidRequest()), false);
  assert.equal(answersWithNullId(new Error("x")), false);
  assert.equal(answersWithNullId(undefined), false);
});
