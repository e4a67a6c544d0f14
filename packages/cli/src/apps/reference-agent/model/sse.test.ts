import assert from "node:assert/strict";
import { test } from "node:test";
import { completionsUrl, resolveModelConfig } from "./config.js";
import { sseData } from "./sse.js";

function body(parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
}

async function collect(parts: string[]): Promise<string[]> {
  const out: string[] = [];
  for await (const data of sseData(body(parts))) out.push(data);
  return out;
}

test("sseData: events split anywhere, CRLF, comments, multi-line data, [DONE] ends the stream", async () => {
  const text =
    ': keep-alive\r\ndata: {"a":1}\r\n\r\ndata:{"b":2}\n\ndata: x\ndata: y\n\nevent: other\ndata: ' +
    "[DONE]\n\ndata: after\n\n";
  for (let split = 0; split <= text.length; split++) {
    assert.deepEqual(
      await collect([text.slice(0, split), text.slice(split)]),
      ['{"a":1}', '{"b":2}', "x\ny"],
      `split at ${split}`,
    );
  }
});

test("sseData: a last event without its blank line is still delivered", async () => {
  assert.deepEqual(await collect(["data: one\n\ndata: two"]), ["one", "two"]);
});

test("model config: flags win over the environment; a half configuration is an error", () => {
  assert.equal(resolveModelConfig({}, {}), undefined);
  assert.deepEqual(
    resolveModelConfig({ model: "m" }, { ACP_MODEL_URL: "http://h/v1", ACP_MODEL: "env", ACP_MODEL_KEY: "k" }),
    { url: "http://h/v1", model: "m", key: "k" },
  );
  assert.throws(() => resolveModelConfig({ url: "http://h/v1" }, {}), /no model name/);
  assert.throws(() => resolveModelConfig({}, { ACP_MODEL: "m" }), /no endpoint/);
  assert.equal(completionsUrl("http://h/v1/"), "http://h/v1/chat/completions");
  assert.equal(completionsUrl("http://h/v1/chat/completions"), "http://h/v1/chat/completions");
});
