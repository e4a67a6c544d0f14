import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SchemaValidationError, type ValidationIssue, schemas } from "./index.js";
import { unstableSchemas } from "./unstable.js";

const chunk = (content: unknown) => ({ sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content } });

function parseError(run: () => unknown): SchemaValidationError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof SchemaValidationError, `expected SchemaValidationError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected parse to throw");
}

const paths = (issues: ValidationIssue[]) => issues.map((i) => i.path);

describe("parse, check, is", () => {
  test("a valid value parses to the same object, with unknown fields and _meta intact", () => {
    const value = {
      sessionId: "s1",
      vendorField: { keep: [1, 2] },
      _meta: { "zed.dev": { trace: "abc" } },
      update: {
        sessionUpdate: "agent_message_chunk",
        futureField: true,
        content: { type: "text", text: "hi", _meta: { x: null }, annotations: { priority: 0.5, extra: "x" } },
      },
    };
    const copy = structuredClone(value);
    assert.equal(schemas.SessionNotification.parse(value), value);
    assert.deepEqual(value, copy);
    assert.deepEqual(schemas.SessionNotification.check(value), []);
    assert.equal(schemas.SessionNotification.is(value), true);
  });

  test("the error names schema, exact path, expected and received", () => {
    const error = parseError(() => schemas.SessionNotification.parse(chunk({ type: "text", text: 5 })));
    assert.equal(
      error.message,
      "Invalid SessionNotification at $.update.content.text: expected string, received number 5",
    );
    assert.equal(error.schema, "SessionNotification");
    assert.deepEqual(error.issues, [{ path: "$.update.content.text", expected: "string", received: "number 5" }]);
  });

  test("paths index arrays and quote keys that are not identifiers", () => {
    const prompt = {
      sessionId: "s",
      prompt: [
        { type: "text", text: "a" },
        { type: "image", data: "x" },
      ],
    };
    assert.deepEqual(schemas.PromptRequest.check(prompt), [
      { path: "$.prompt[1].mimeType", expected: "string", received: "missing" },
    ]);
    const tool = {
      sessionId: "s",
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "t",
        title: "x",
        content: [{ type: "diff", path: "p", newText: "n" }, { type: 7 }],
      },
    };
    assert.deepEqual(paths(schemas.SessionNotification.check(tool)), ["$.update.content[1].type"]);
    const form = { type: "object", properties: { "first name": { type: "string", title: 7 } } };
    assert.deepEqual(schemas.ElicitationSchema.check(form), [
      { path: '$.properties["first name"].title', expected: "string | null", received: "number 7" },
    ]);
  });

  test("received values are described briefly", () => {
    const received = (value: unknown) => schemas.ProtocolVersion.check(value)[0]!.received;
    assert.equal(received(undefined), "missing");
    assert.equal(received(null), "null");
    assert.equal(received(true), "boolean true");
    assert.equal(received([1, 2]), "array (length 2)");
    assert.equal(received({ a: 1 }), "object");
    assert.equal(received(12.5), "number 12.5");
    assert.equal(received("x".repeat(50)), `string "${"x".repeat(40)}…"`);
  });

  test("check collects every issue (capped at 20), parse stops at the first", () => {
    const value = { sessionId: 1, prompt: [{ type: "text" }, { type: "text", text: 2 }] };
    assert.deepEqual(paths(schemas.PromptRequest.check(value)), [
      "$.sessionId",
      "$.prompt[0].text",
      "$.prompt[1].text",
    ]);
    assert.equal(parseError(() => schemas.PromptRequest.parse(value)).issues.length, 1);
    const many = { sessionId: "s", prompt: Array.from({ length: 50 }, () => ({ type: "text" })) };
    assert.equal(schemas.PromptRequest.check(many).length, 20);
    const error = parseError(() => schemas.PromptRequest.parse({ prompt: "x" }));
    assert.match(error.message, /^Invalid PromptRequest at \$\.sessionId: expected string, received missing$/);
  });

  test("required properties must be present; a wrong top-level type is reported at $", () => {
    assert.deepEqual(schemas.TextContent.check({}), [{ path: "$.text", expected: "string", received: "missing" }]);
    assert.deepEqual(schemas.TextContent.check("text"), [{ path: "$", expected: "object", received: 'string "text"' }]);
    assert.deepEqual(schemas.TextContent.check([]), [{ path: "$", expected: "object", received: "array (length 0)" }]);
  });
});

describe("integers, formats and ranges", () => {
  const location = (line: unknown) => schemas.ToolCallLocation.check({ path: "/a", line });
  test("uint32: integers within [0, 4294967295]", () => {
    assert.deepEqual(location(0), []);
    assert.deepEqual(location(4294967295), []);
    assert.deepEqual(location(null), []);
    for (const bad of [-1, 4294967296, 1.5, "3", Number.NaN]) {
      assert.equal(location(bad)[0]?.expected, "integer (uint32) | null", String(bad));
    }
  });
  test("uint16 protocol version, uint64 usage, int64 ids, double amounts", () => {
    assert.equal(schemas.ProtocolVersion.is(65535), true);
    assert.equal(schemas.ProtocolVersion.is(65536), false);
    assert.deepEqual(schemas.ProtocolVersion.check(-1), [
      { path: "$", expected: "integer (uint16)", received: "number -1" },
    ]);
    assert.equal(schemas.UsageUpdate.is({ used: 2 ** 53, size: 0 }), true);
    assert.equal(schemas.UsageUpdate.is({ used: -1, size: 0 }), false);
    assert.equal(schemas.RequestId.is(-(2 ** 63)), true);
    assert.equal(schemas.RequestId.is(2 ** 63), false);
    assert.equal(schemas.RequestId.is(1.5), false);
    assert.equal(schemas.Cost.is({ amount: 0.045, currency: "USD" }), true);
    assert.equal(schemas.Cost.is({ amount: Number.POSITIVE_INFINITY, currency: "USD" }), false);
    assert.equal(schemas.ErrorCode.is(-32601), true);
    assert.equal(schemas.ErrorCode.is(2 ** 31), false);
  });
  test("a uri is not rejected for its form; minLength counts characters", () => {
    const url = { message: "m", mode: "url", sessionId: "s", elicitationId: "e", url: "not really a uri" };
    assert.deepEqual(schemas.CreateElicitationRequest.check(url), []);
    const notice = (title: string) => unstableSchemas.Notice.is({ severity: "info", title });
    assert.equal(notice(""), false);
    assert.equal(notice("😀"), true);
  });
});

describe("null where an empty result is expected", () => {
  test("objects without required properties parse null/undefined as {}", () => {
    assert.deepEqual(schemas.WriteTextFileResponse.parse(null), {});
    assert.deepEqual(schemas.LoadSessionResponse.parse(undefined), {});
    assert.deepEqual(schemas.SetSessionModeResponse.parse(null), {});
    assert.deepEqual(schemas.ClientCapabilities.parse(null), {
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
      auth: { terminal: false },
    });
  });
  test("strict check and is still reject null; objects with required properties reject it in parse", () => {
    assert.deepEqual(schemas.WriteTextFileResponse.check(null), [{ path: "$", expected: "object", received: "null" }]);
    assert.equal(schemas.LoadSessionResponse.is(null), false);
    assert.throws(() => schemas.ReadTextFileResponse.parse(null), SchemaValidationError);
    assert.throws(() => schemas.PromptResponse.parse(undefined), SchemaValidationError);
  });
});

describe("tagged unions", () => {
  test("an unknown session update kind passes parse untouched, fails check and is", () => {
    const value = { sessionId: "s", update: { sessionUpdate: "brand_new_kind", payload: { x: 1 } } };
    const copy = structuredClone(value);
    assert.equal(schemas.SessionNotification.parse(value), value);
    assert.deepEqual(value, copy);
    const issues = schemas.SessionNotification.check(value);
    assert.equal(issues.length, 1);
    assert.equal(issues[0]!.path, "$.update.sessionUpdate");
    assert.match(
      issues[0]!.expected,
      /^one of "user_message_chunk", "agent_message_chunk", .*"usage_update", "notice", "compaction_update", "compaction_summary_chunk"$/,
    );
    assert.equal(issues[0]!.received, 'string "brand_new_kind"');
    assert.equal(schemas.SessionNotification.is(value), false);
  });

  test("unknown tags deeper down pass parse too (content blocks, tool call content)", () => {
    const value = chunk({ type: "video", url: "x" });
    assert.equal(schemas.SessionNotification.parse(value), value);
    assert.deepEqual(paths(schemas.SessionNotification.check(value)), ["$.update.content.type"]);
  });

  test("a missing or non-string tag fails in every mode", () => {
    for (const content of [{ text: "x" }, { type: 3, text: "x" }]) {
      const error = parseError(() => schemas.SessionNotification.parse(chunk(content)));
      assert.equal(error.issues[0]!.path, "$.update.content.type");
    }
    assert.equal(schemas.ContentBlock.check({ text: "x" })[0]!.received, "missing");
  });

  test("a known tag with a bad payload fails, with the payload's path", () => {
    assert.deepEqual(schemas.RequestPermissionOutcome.check({ outcome: "selected" }), [
      { path: "$.optionId", expected: "string", received: "missing" },
    ]);
    assert.equal(schemas.RequestPermissionOutcome.is({ outcome: "cancelled" }), true);
  });

  test("McpServer: unknown or absent type falls back to stdio in both modes", () => {
    const stdio = { name: "fs", command: "/bin/mcp", args: [], env: [] };
    assert.deepEqual(schemas.McpServer.check(stdio), []);
    assert.deepEqual(schemas.McpServer.check({ ...stdio, type: "future" }), []);
    assert.deepEqual(paths(schemas.McpServer.check({ type: "future", name: "x", url: "u", headers: [] })), [
      "$.command",
      "$.args",
      "$.env",
    ]);
    assert.throws(
      () => schemas.McpServer.parse({ type: "future", name: "x", url: "u", headers: [] }),
      SchemaValidationError,
    );
    assert.deepEqual(schemas.McpServer.check({ type: "http", name: "h", url: 5, headers: [] }), [
      { path: "$.url", expected: "string", received: "number 5" },
    ]);
  });

  test("AuthMethod: unknown type falls back to the agent method", () => {
    assert.deepEqual(schemas.AuthMethod.check({ id: "a", name: "Agent" }), []);
    assert.deepEqual(schemas.AuthMethod.check({ type: "oauth-someday", id: "a", name: "Agent" }), []);
    assert.deepEqual(paths(schemas.AuthMethod.check({ type: "terminal", id: 1, name: "T" })), ["$.id"]);
  });

  test("explicit catch-all variants apply their own rules in both modes", () => {
    assert.deepEqual(schemas.ElicitationPropertySchema.check({ type: "color", anything: [1] }), []);
    assert.deepEqual(paths(schemas.ElicitationPropertySchema.check({ type: "string", enum: 5 })), ["$.enum"]);
    assert.deepEqual(schemas.CreateElicitationResponse.check({ action: "later", extra: 1 }), []);
    assert.deepEqual(schemas.CreateElicitationRequest.check({ message: "m", mode: "custom", requestId: 3 }), []);
    assert.deepEqual(schemas.CreateElicitationRequest.check({ message: "m", mode: "custom" }), [
      { path: "$.sessionId", expected: "string", received: "missing" },
    ]);
    assert.throws(
      () => schemas.CreateElicitationRequest.parse({ message: "m", mode: "custom" }),
      SchemaValidationError,
    );
    assert.deepEqual(schemas.MultiSelectItems.check({ type: "number-list", step: 2 }), []);
    assert.deepEqual(schemas.MultiSelectItems.check({ anyOf: [{ const: "a", title: "A" }] }), []);
  });

  test("SessionConfigOption dispatches on type and checks the shared properties", () => {
    const select = { id: "m", name: "Model", type: "select", currentValue: "a", options: [{ value: "a", name: "A" }] };
    assert.deepEqual(schemas.SessionConfigOption.check(select), []);
    assert.deepEqual(paths(schemas.SessionConfigOption.check({ ...select, name: 1, currentValue: 2 })), [
      "$.name",
      "$.currentValue",
    ]);
    assert.deepEqual(
      schemas.SessionConfigOption.check({ id: "b", name: "B", type: "boolean", currentValue: true }),
      [],
    );
  });
});

describe("untagged unions", () => {
  test("EmbeddedResourceResource: text or blob; errors come from the closer variant", () => {
    assert.deepEqual(schemas.EmbeddedResourceResource.check({ uri: "u", text: "t" }), []);
    assert.deepEqual(schemas.EmbeddedResourceResource.check({ uri: "u", blob: "b" }), []);
    assert.deepEqual(schemas.EmbeddedResourceResource.check({ uri: "u", blob: 5 }), [
      { path: "$.blob", expected: "string", received: "number 5" },
    ]);
  });
  test("SessionConfigSelectOptions: flat options or groups", () => {
    assert.equal(schemas.SessionConfigSelectOptions.is([{ value: "a", name: "A" }]), true);
    assert.equal(schemas.SessionConfigSelectOptions.is([{ group: "g", name: "G", options: [] }]), true);
    assert.equal(schemas.SessionConfigSelectOptions.is([{ value: "a" }]), false);
  });
  test("primitive unions check without mutation", () => {
    for (const ok of [null, 0, -5, "id"]) assert.equal(schemas.RequestId.is(ok), true, String(ok));
    assert.deepEqual(schemas.RequestId.check(true), [
      { path: "$", expected: "null | integer (int64) | string", received: "boolean true" },
    ]);
    for (const ok of ["s", 1, 1.5, false, ["a"]])
      assert.equal(schemas.ElicitationContentValue.is(ok), true, String(ok));
    assert.equal(schemas.ElicitationContentValue.is([1]), false);
    assert.equal(schemas.SessionConfigOptionCategory.is("anything-goes"), true);
    assert.equal(schemas.SessionConfigOptionCategory.check(1)[0]!.expected, "string");
  });
  test("SetSessionConfigOptionRequest: a boolean with type boolean, else a value id", () => {
    const base = { sessionId: "s", configId: "c" };
    assert.equal(schemas.SetSessionConfigOptionRequest.is({ ...base, type: "boolean", value: true }), true);
    assert.equal(schemas.SetSessionConfigOptionRequest.is({ ...base, value: "fast" }), true);
    assert.equal(schemas.SetSessionConfigOptionRequest.is({ ...base, value: true }), false);
  });
});
