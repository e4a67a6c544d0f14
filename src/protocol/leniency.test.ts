import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SchemaValidationError, schemas } from "./index.js";
import { unstableSchemas } from "./unstable.js";

const toolCallUpdate = (fields: Record<string, unknown>) => ({
  sessionId: "s",
  update: { sessionUpdate: "tool_call_update", toolCallId: "call_1", ...fields },
});

/** Parses a copy and checks the original: the two leniency contracts side by side. */
function both<T>(schema: { parse(v: unknown): T; check(v: unknown): Array<{ path: string }> }, value: unknown) {
  const original = structuredClone(value);
  const issues = schema.check(value);
  assert.deepEqual(value, original, "check must not mutate");
  return { parsed: schema.parse(value), issues: issues.map((i) => i.path) };
}

describe("x-deserialize-default-on-error", () => {
  test("with a default: an invalid value becomes the default (nested defaults too)", () => {
    const { parsed, issues } = both(schemas.InitializeResponse, {
      protocolVersion: 1,
      agentCapabilities: { loadSession: "yes", promptCapabilities: 5, mcpCapabilities: { http: true } },
    });
    assert.deepEqual(parsed, {
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: false, audio: false, embeddedContext: false },
        mcpCapabilities: { http: true, sse: false },
        sessionCapabilities: {},
        auth: {},
      },
      authMethods: [],
    });
    assert.deepEqual(issues, ["$.agentCapabilities.loadSession", "$.agentCapabilities.promptCapabilities"]);
  });

  test("a whole invalid capabilities object is replaced by its default", () => {
    const parsed = schemas.InitializeRequest.parse({ protocolVersion: 1, clientCapabilities: "all of them" });
    assert.deepEqual(parsed.clientCapabilities, {
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
      auth: { terminal: false },
    });
    const schema = schemas.ElicitationSchema.parse({ type: "array", properties: {} });
    assert.equal(schema.type, "object");
  });

  test("without a default: an invalid optional value is removed", () => {
    const value = toolCallUpdate({
      status: "exploded",
      title: 42,
      kind: ["x"],
      _meta: "not an object",
      rawOutput: { ok: 1 },
    });
    const { parsed, issues } = both(schemas.SessionNotification, value);
    assert.deepEqual(issues, ["$.update.kind", "$.update.status", "$.update.title", "$.update._meta"]);
    assert.deepEqual(parsed.update, { sessionUpdate: "tool_call_update", toolCallId: "call_1", rawOutput: { ok: 1 } });
    assert.equal("status" in parsed.update, false);
  });

  test("a required property without a default gets its type's empty value; missing is still an error", () => {
    const { parsed, issues } = both(schemas.ListSessionsResponse, { sessions: "nope", nextCursor: 7 });
    assert.deepEqual(parsed, { sessions: [] });
    assert.deepEqual(issues, ["$.sessions", "$.nextCursor"]);
    assert.deepEqual(schemas.NewSessionRequest.parse({ cwd: "/w", mcpServers: null }), { cwd: "/w", mcpServers: [] });
    assert.deepEqual(schemas.Plan.parse({ entries: {} }), { entries: [] });
    assert.throws(() => schemas.ListSessionsResponse.parse({}), /at \$\.sessions: expected array, received missing/);
  });

  test("properties without the annotation stay strict in parse", () => {
    assert.throws(() => schemas.SessionNotification.parse(toolCallUpdate({ toolCallId: 5 })), SchemaValidationError);
    assert.throws(
      () => schemas.ListSessionsRequest.parse({ cwd: 5 }),
      /at \$\.cwd: expected string \| null, received number 5/,
    );
  });
});

describe("x-deserialize-skip-invalid-items", () => {
  test("parse drops invalid items in place and keeps the rest in order", () => {
    const content = [
      { type: "content", content: { type: "text", text: "kept 1" } },
      { type: "diff", path: "/p" },
      "garbage",
      { type: "terminal", terminalId: "t1" },
      { type: "content", content: { type: "text", text: 9 } },
    ];
    const value = toolCallUpdate({ content, locations: [{ path: "/a", line: 1 }, { line: 2 }] });
    const { parsed, issues } = both(schemas.SessionNotification, value);
    assert.deepEqual(issues, [
      "$.update.content[1].newText",
      "$.update.content[2]",
      "$.update.content[4].content.text",
      "$.update.locations[1].path",
    ]);
    assert.equal(
      parsed.update.sessionUpdate === "tool_call_update" && parsed.update.content,
      content,
      "same array, compacted",
    );
    assert.deepEqual(content, [
      { type: "content", content: { type: "text", text: "kept 1" } },
      { type: "terminal", terminalId: "t1" },
    ]);
  });

  test("arrays of commands, modes and auth methods", () => {
    const commands = schemas.AvailableCommandsUpdate.parse({
      availableCommands: [{ name: "web" }, { name: "test", description: "Run" }],
    });
    assert.deepEqual(commands.availableCommands, [{ name: "test", description: "Run" }]);
    const init = schemas.InitializeResponse.parse({
      protocolVersion: 1,
      authMethods: [{ id: "a" }, { id: "b", name: "B" }],
    });
    assert.deepEqual(init.authMethods, [{ id: "b", name: "B" }]);
  });

  test("an item with an unknown tag is not invalid: it survives parse (forward compatibility)", () => {
    const value = toolCallUpdate({ content: [{ type: "hologram", frames: 3 }] });
    const parsed = schemas.SessionNotification.parse(value);
    assert.deepEqual(parsed.update.sessionUpdate === "tool_call_update" && parsed.update.content, [
      { type: "hologram", frames: 3 },
    ]);
    assert.deepEqual(
      schemas.SessionNotification.check(value).map((i) => i.path),
      ["$.update.content[0].type"],
    );
  });

  test("items are repaired by their own leniency before being judged", () => {
    const parsed = schemas.SessionModeState.parse({
      currentModeId: "ask",
      availableModes: [{ id: "ask", name: "Ask", description: 12 }, { id: 3 }],
    });
    assert.deepEqual(parsed.availableModes, [{ id: "ask", name: "Ask" }]);
  });

  test("arrays without the annotation stay strict", () => {
    assert.throws(
      () => schemas.PromptRequest.parse({ sessionId: "s", prompt: [{ type: "text", text: "ok" }, { type: "text" }] }),
      /at \$\.prompt\[1\]\.text: expected string, received missing/,
    );
  });
});

describe("x-deserialize-default-on-null", () => {
  test("parse reads an explicit null as the empty list or map; check and is still refuse it", () => {
    const request = { sessionId: "s", command: "ls", args: null, env: null };
    const parsed = schemas.CreateTerminalRequest.parse(structuredClone(request));
    assert.deepEqual(parsed, { sessionId: "s", command: "ls", args: [], env: [] });
    assert.deepEqual(
      schemas.CreateTerminalRequest.check(request).map((i) => i.path),
      ["$.args", "$.env"],
    );
    assert.equal(schemas.CreateTerminalRequest.is(request), false);
    const session = schemas.NewSessionRequest.parse({ cwd: "/w", mcpServers: null });
    assert.deepEqual(session.mcpServers, []);
  });

  test("a missing required property is still an error, and a wrong non-null value still fails", () => {
    assert.throws(
      () => schemas.NewSessionRequest.parse({ cwd: "/w" }),
      /\$\.mcpServers: expected array, received missing/,
    );
    assert.throws(
      () => schemas.CreateTerminalRequest.parse({ sessionId: "s", command: "ls", args: [1] }),
      /\$\.args\[0\]/,
    );
    assert.throws(() => schemas.CreateTerminalRequest.parse({ sessionId: "s", command: "ls", args: "-l" }), /\$\.args/);
  });

  test("the map flavour: an auth method's env", () => {
    const init = unstableSchemas.InitializeResponse.parse({
      protocolVersion: 1,
      authMethods: [{ type: "terminal", id: "t", name: "T", args: null, env: null }],
    });
    assert.deepEqual(init.authMethods, [{ type: "terminal", id: "t", name: "T", args: [], env: {} }]);
  });
});

describe("schema defaults for missing properties", () => {
  test("parse fills them, check and is leave the value alone", () => {
    const value = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } };
    assert.deepEqual(schemas.InitializeRequest.check(value), []);
    assert.deepEqual(value, { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } });
    schemas.InitializeRequest.parse(value);
    assert.deepEqual(value.clientCapabilities, {
      fs: { readTextFile: true, writeTextFile: false },
      terminal: false,
      auth: { terminal: false },
    });
  });

  test("each parse gets a fresh default object", () => {
    const a = schemas.ClientCapabilities.parse({});
    const b = schemas.ClientCapabilities.parse({});
    assert.notEqual(a.fs, b.fs);
    a.fs!.readTextFile = true;
    assert.equal(b.fs!.readTextFile, false);
  });

  test("the unstable schema has its own defaults (mcpCapabilities.acp)", () => {
    const parsed = unstableSchemas.InitializeResponse.parse({ protocolVersion: 1, agentCapabilities: 0 });
    assert.deepEqual(parsed.agentCapabilities?.mcpCapabilities, { http: false, sse: false, acp: false });
  });
});
