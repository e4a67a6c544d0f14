/**
 * acpkit's deliberate differences from the official SDK 2.4.0 when a 2.x app's connection ends (the scenarios both
 * share are in close-semantics-apps.test.ts): a `ConnectionClosedError` that wraps the reason. Listed in MIGRATING.md.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as official from "@agentclientprotocol/sdk";
import * as acpkit from "../../src/entries/index.js";
import { INITIALIZE, manualReadable, messageStream } from "./support/app-streams.js";

describe("2.x apps: acpkit's deliberate differences on close", () => {
  test(
    "pending and later calls reject with a ConnectionClosedError whose cause is the reason (2.4.0: the reason " +
      "itself)",
    async () => {
      const { stream } = messageStream();
      const connection = acpkit.client().connect(stream as acpkit.Stream);
      const pending = connection.agent.request(acpkit.methods.agent.initialize, INITIALIZE);
      const reason = new Error("user quit");
      connection.close(reason);
      await assert.rejects(
        pending,
        (error: unknown) =>
          error instanceof acpkit.ConnectionClosedError &&
          error.cause === reason &&
          /^ACP connection closed: user quit/.test(error.message),
      );
      assert.ok(connection.signal.reason instanceof acpkit.ConnectionClosedError);
      assert.equal((connection.signal.reason as acpkit.ConnectionClosedError).cause, reason);
    },
  );

  test("connectWith when the connection closes first: a ConnectionClosedError saying what closed it", async () => {
    const { stream, input } = messageStream();
    const result = acpkit.client().connectWith(stream as acpkit.Stream, () => new Promise(() => {}));
    input.controller.close();
    await assert.rejects(
      result,
      (error: unknown) =>
        error instanceof acpkit.ConnectionClosedError &&
        /the peer closed the connection \(end of input\)/.test(error.message),
    );
  });

  test(
    "a notification over acpkit's ndJsonStream resolves once queued; the failed write then closes the " +
      "connection (2.4.0: it rejects)",
    async () => {
      const connection = acpkit
        .client()
        .connect(
          acpkit.ndJsonStream(
            new WritableStream({ write: () => Promise.reject(new Error("EPIPE here")) }),
            manualReadable<Uint8Array>().readable,
          ),
        );
      await connection.agent.notify(acpkit.methods.agent.session.cancel, { sessionId: "s" });
      await connection.closed;
      assert.match((connection.signal.reason as Error).message, /the transport failed: EPIPE here/);
    },
  );

  test(
    "connectWith with an onConnect handler that throws returns a " + "rejected promise (2.4.0 throws synchronously)",
    async () => {
      const thrown = new Error("onConnect failed");
      const app = acpkit.client().onConnect(() => {
        throw thrown;
      });
      const result = app.connectWith(messageStream().stream as acpkit.Stream, () => "never");
      assert.ok(result instanceof Promise);
      await assert.rejects(result, (error: unknown) => error === thrown);
      assert.throws(
        () =>
          void official
            .client()
            .onConnect(() => {
              throw thrown;
            })
            .connectWith(messageStream().stream, () => "never"),
        (error: unknown) => error === thrown,
      );
    },
  );
});
