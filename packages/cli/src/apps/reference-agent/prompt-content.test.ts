import assert from "node:assert/strict";
import { test } from "node:test";
import { base64Bytes, blockForModel, describePrompt } from "./prompt-content.js";

test("describePrompt names each non-text block; text-only prompts need no description", () => {
  assert.equal(describePrompt([{ type: "text", text: "hi" }]), undefined);
  assert.equal(
    describePrompt([{ type: "image", mimeType: "image/png", data: Buffer.from("abc").toString("base64") }]),
    "You sent an image (image/png, 3 bytes).",
  );
  assert.match(
    describePrompt([
      { type: "resource", resource: { uri: "file:///b", blob: "AAAA" } },
      { type: "audio", mimeType: "audio/wav", data: "" },
    ])!,
    /^You sent 2 attachments: an embedded resource file:\/\/\/b \(binary, 3 bytes\); audio \(audio\/wav, 0 bytes\)\.$/,
  );
  for (const size of [0, 1, 2, 3, 4, 5]) assert.equal(base64Bytes(Buffer.alloc(size).toString("base64")), size);
  assert.equal(
    blockForModel({ type: "resource", resource: { uri: "file:///a", text: "x" } }),
    '<resource uri="file:///a">\nx\n</resource>',
  );
});
