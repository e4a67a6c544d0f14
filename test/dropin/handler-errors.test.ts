/**
 * Fault 5 of issue 8: a handler that throws a plain `Error` is answered -32603 with the message in `data.details`
 * (never a stack) and logged, as the official SDK does; the same request is sent to the official 2.4.0 and 1.9.0 to
 * compare the replies field by field.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as official from "@agentclientprotocol/sdk";
import * as official1x from "sdk-1.9";
import * as acpkit from "../../src/entries/index.js";
import { rawPeer, recordingLogger } from "./support/raw-peer.js";

type V1 = typeof official1x;
type Reply = { error?: { code: number; message: string; data?: unknown } };

const cases: Array<[string, () => never]> = [
  [
    "a plain Error",
    () => {
      throw new Error("disk full");
    },
  ],
  [
    "an Error whose message is JSON",
    () => {
      throw new Error('{"reason":"quota"}');
    },
  ],
  [
    "a thrown string",
    () => {
      throw "not an error";
    },
  ],
  [
    "an object with a message",
    () => {
      throw { message: "shaped like an error" };
    },
  ],
  [
    "an Error without a message",
    () => {
      throw new Error();
    },
  ],
];

/** The reply a 1.x AgentSideConnection of `sdk` gives to session/new when its handler does `fail`. */
async function replyFrom(sdk: V1, fail: () => never, options?: unknown): Promise<Reply> {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const Agent = sdk.AgentSideConnection as unknown as new (...args: unknown[]) => unknown;
  new Agent(
    () => ({
      initialize: async () => ({ protocolVersion: 1 }),
      newSession: async () => fail(),
      authenticate: async () => ({}),
      prompt: async () => ({ stopReason: "end_turn" }),
      cancel: async () => {},
    }),
    sdk.ndJsonStream(toClient.writable, toAgent.readable),
    options,
  );
  const writer = toAgent.writable.getWriter();
  void writer.write(
    new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}\n'),
  );
  const reader = toClient.readable.getReader();
  const { value } = await reader.read();
  return JSON.parse(new TextDecoder().decode(value)) as Reply;
}

describe("a throwing request handler", () => {
  for (const [name, fail] of cases) {
    test(`${name}: answered like the official SDK (1.9.0 and 2.4.0), never with a stack`, async () => {
      const logger = recordingLogger();
      const ours = await replyFrom(acpkit as unknown as V1, fail, { logger });
      const theirs = await replyFrom(official1x, fail);
      assert.deepEqual(ours, theirs);
      assert.equal(ours.error?.code, -32603);
      assert.doesNotMatch(JSON.stringify(ours), /at .*\.js|Error\n/);
      assert.ok(
        logger.lines.some((l) => l.level === "error" && /session\/new/.test(JSON.stringify(l))),
        logger.text(),
      );
    });
  }

  test("the 2.x app answers as 2.4.0's does", async () => {
    const answers: unknown[] = [];
    for (const sdk of [acpkit as unknown as typeof official, official]) {
      const options = (sdk as unknown) === acpkit ? { logger: acpkit.silentLogger } : undefined;
      const app = sdk.agent(options as never).onRequest("session/new", () => {
        throw new Error("no sessions today");
      });
      await sdk.client().connectWith(app, async (ctx) => {
        await ctx
          .request("session/new", { cwd: "/w", mcpServers: [] })
          .catch((error: { code: number; message: string; data: unknown }) => {
            answers.push({ code: error.code, message: error.message, data: error.data });
          });
      });
    }
    assert.equal(answers.length, 2);
    assert.deepEqual(answers[0], answers[1]);
    assert.deepEqual(answers[0], { code: -32603, message: "Internal error", data: { details: "no sessions today" } });
  });

  test("a RequestError goes out as it is, and a cancelled request answers -32800", async () => {
    const peer = rawPeer();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    new acpkit.AgentSideConnection(
      () => ({
        initialize: async () => ({ protocolVersion: 1 }),
        newSession: async () => {
          throw acpkit.RequestError.resourceNotFound("file:///x");
        },
        authenticate: async () => ({}),
        prompt: async (_params, context) => {
          started();
          await new Promise((_, reject) =>
            context!.signal.addEventListener("abort", () => reject(new Error("aborted"))),
          );
          return { stopReason: "end_turn" };
        },
        cancel: async () => {},
      }),
      peer.stream,
      { logger: recordingLogger() },
    );
    await peer.send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    assert.deepEqual((await peer.next((m) => m.id === 1)).error, {
      code: -32002,
      message: "Resource not found: file:///x",
      data: { uri: "file:///x" },
    });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId: "s", prompt: [] } });
    await running;
    await peer.send({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 2 } });
    assert.equal(((await peer.next((m) => m.id === 2)).error as { code: number }).code, -32800);
  });
});
