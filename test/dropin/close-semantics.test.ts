/**
 * Fault 8 of issue 8: close and error semantics. Code written for the official SDK observes: pending and later
 * requests reject with an error whose message says "ACP connection closed" (or carries the transport's own message),
 * `closed` resolves, `signal` aborts, and a notification whose write failed rejects with the write's error. Each
 * scenario runs on acpkit and on the official 1.9.0; acpkit's extras (a `ConnectionClosedError` with the cause) are
 * checked on acpkit alone. MIGRATING.md lists what remains different on purpose.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as official1x from "sdk-1.9";
import * as acpkit from "../../src/entries/index.js";

type V1 = typeof official1x;
const impls: Array<[string, V1]> = [
  // A cast: the official classes have private members, which TypeScript compares nominally (the shapes are checked in
  // type-shapes.test.ts).
  ["acpkit", acpkit as unknown as V1],
  ["official 1.9.0", official1x],
];

const minimalClient = (): official1x.Client => ({
  requestPermission: async () => ({ outcome: { outcome: "cancelled" } }),
  sessionUpdate: async () => {},
});

function quietOptions(name: string): unknown {
  return name === "acpkit" ? { logger: acpkit.silentLogger } : undefined;
}

function connect(name: string, sdk: V1, stream: official1x.Stream): official1x.ClientSideConnection {
  const Client = sdk.ClientSideConnection as unknown as new (...args: unknown[]) => official1x.ClientSideConnection;
  return new Client(minimalClient, stream, quietOptions(name));
}

/** A readable that stays open until the test ends or errors it. */
function manualReadable<T>() {
  let controller!: ReadableStreamDefaultController<T>;
  const readable = new ReadableStream<T>({ start: (c) => void (controller = c) });
  return { readable, controller };
}

for (const [name, sdk] of impls) {
  describe(`close and error semantics (${name})`, () => {
    test(
      "the input ending: pending requests reject with 'ACP " + "connection closed', closed resolves, signal aborts",
      async () => {
        const input = manualReadable<Uint8Array>();
        const connection = connect(name, sdk, sdk.ndJsonStream(new WritableStream(), input.readable));
        const pending = connection.newSession({ cwd: "/", mcpServers: [] });
        input.controller.close();
        await assert.rejects(
          pending,
          (error: unknown) => error instanceof Error && /ACP connection closed/.test(error.message),
        );
        await connection.closed;
        assert.equal(connection.signal.aborted, true);
        await assert.rejects(connection.newSession({ cwd: "/", mcpServers: [] }), /ACP connection closed/);
      },
    );

    test("requests never awaited: no unhandled rejection when the connection closes under them", async () => {
      const seen: unknown[] = [];
      const listener = (reason: unknown) => void seen.push(reason);
      process.on("unhandledRejection", listener);
      try {
        const input = manualReadable<Uint8Array>();
        const connection = connect(name, sdk, sdk.ndJsonStream(new WritableStream(), input.readable));
        void connection.newSession({ cwd: "/", mcpServers: [] });
        void connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
        input.controller.close();
        await connection.closed;
        void connection.newSession({ cwd: "/", mcpServers: [] });
        await new Promise((resolve) => setTimeout(resolve, 10));
      } finally {
        process.off("unhandledRejection", listener);
      }
      assert.deepEqual(seen, []);
    });

    test("the input failing: pending requests reject with the transport's message", async () => {
      const input = manualReadable<Uint8Array>();
      const connection = connect(name, sdk, sdk.ndJsonStream(new WritableStream(), input.readable));
      const pending = connection.newSession({ cwd: "/", mcpServers: [] });
      input.controller.error(new Error("process exited with code 1"));
      await assert.rejects(pending, /process exited with code 1/);
      await connection.closed;
      assert.equal(connection.signal.aborted, true);
    });

    test(
      "a failing write (a foreign message stream): the request and " + "a notification reject with the write's error",
      async () => {
        const writeError = new Error("write failed");
        const stream = {
          readable: manualReadable<official1x.AnyMessage>().readable,
          writable: new WritableStream({ write: () => Promise.reject(writeError) }),
        };
        const connection = connect(name, sdk, stream);
        await assert.rejects(connection.newSession({ cwd: "/", mcpServers: [] }), /write failed/);
        await connection.closed;
        assert.equal(connection.signal.aborted, true);

        const again = connect(name, sdk, {
          readable: manualReadable<official1x.AnyMessage>().readable,
          writable: new WritableStream({ write: () => Promise.reject(writeError) }),
        });
        await assert.rejects(again.cancel({ sessionId: "s" }), /write failed/);
      },
    );
  });
}

describe("acpkit's extras on close", () => {
  test("the error is a ConnectionClosedError whose cause is the transport error, and says what to do", async () => {
    const input = manualReadable<Uint8Array>();
    const connection = new acpkit.ClientSideConnection(
      minimalClient as never,
      acpkit.ndJsonStream(new WritableStream(), input.readable),
      { logger: acpkit.silentLogger },
    );
    const pending = connection.newSession({ cwd: "/", mcpServers: [] });
    const cause = new TypeError("pipe broke");
    input.controller.error(cause);
    await assert.rejects(pending, (error: unknown) => {
      assert.ok(error instanceof acpkit.ConnectionClosedError);
      assert.ok(error instanceof acpkit.LocalError);
      assert.equal(error.cause, cause);
      assert.equal(error.detail, "the transport failed: pipe broke");
      assert.match(
        error.message,
        /^ACP connection closed: the transport failed: pipe broke\. Open a new connection to continue\.$/,
      );
      return true;
    });
    assert.ok(connection.signal.reason instanceof acpkit.ConnectionClosedError);
  });

  test("close(reason) rejects pending requests with a ConnectionClosedError carrying that reason", async () => {
    const connection = new acpkit.ClientSideConnection(
      minimalClient as never,
      acpkit.ndJsonStream(new WritableStream(), manualReadable<Uint8Array>().readable),
    );
    const pending = connection.newSession({ cwd: "/", mcpServers: [] });
    const reason = new Error("user quit");
    connection.close(reason);
    await assert.rejects(
      pending,
      (error: unknown) =>
        error instanceof acpkit.ConnectionClosedError &&
        error.cause === reason &&
        /ACP connection closed: user quit/.test(error.message),
    );
  });
});
