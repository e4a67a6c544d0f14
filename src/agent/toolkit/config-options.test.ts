import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestError } from "../../jsonrpc/index.js";
import type { SessionConfigOption } from "../../protocol/index.js";
import { resolveSettings, type ConfigChange, type ModeChange } from "./config-options.js";
import { MemorySessionStore } from "./memory-session-store.js";
import { parseCommand } from "./commands.js";
import { connectToolkit, until } from "./testing/harness.js";
import type { ToolkitAgentOptions } from "./toolkit-agent.js";

const newParams = { cwd: "/work/project", mcpServers: [] };
const booleans = { session: { configOptions: { boolean: {} } } };

const model: SessionConfigOption = {
  id: "model",
  name: "Model",
  category: "model",
  type: "select",
  currentValue: "small",
  options: [
    { group: "fast", name: "Fast", options: [{ value: "small", name: "Small" }] },
    { group: "big", name: "Big ones", options: [{ value: "large", name: "Large" }] },
  ],
};
const brave: SessionConfigOption = { id: "brave", name: "Brave mode", type: "boolean", currentValue: false };

function declared(extra: Partial<ToolkitAgentOptions<unknown>> = {}): ToolkitAgentOptions<unknown> {
  return {
    modes: [
      { id: "ask", name: "Ask", description: "Ask before changing anything" },
      { id: "code", name: "Code" },
    ],
    configOptions: [model, brave],
    onPrompt: async (turn) => {
      const command = parseCommand(turn.text);
      if (command?.name === "switch") await turn.session.settings!.setMode(command.args);
      if (command?.name === "model") await turn.session.settings!.setConfigOption("model", command.args);
      return "end_turn";
    },
    ...extra,
  };
}

test(
  "new session: modes, a mirrored category mode option first, " + "booleans only for clients that advertised them",
  async () => {
    const plain = await connectToolkit(declared());
    const response = await plain.client.newSession(newParams);
    assert.deepEqual(response.modes, {
      currentModeId: "ask",
      availableModes: [
        { id: "ask", name: "Ask", description: "Ask before changing anything" },
        { id: "code", name: "Code" },
      ],
    });
    assert.deepEqual(
      response.configOptions!.map((o) => [o.id, o.category, o.currentValue]),
      [
        ["mode", "mode", "ask"],
        ["model", "model", "small"],
      ],
    );
    await assert.rejects(
      plain.client.setSessionConfigOption({
        sessionId: response.sessionId,
        configId: "brave",
        type: "boolean",
        value: true,
      }),
      (e: RequestError) => e.code === -32602 && /unknown config option "brave"/.test(e.message),
    );

    const withBooleans = await connectToolkit(declared(), booleans);
    const full = await withBooleans.client.newSession(newParams);
    assert.deepEqual(
      full.configOptions!.map((o) => o.id),
      ["mode", "model", "brave"],
    );
    const set = await withBooleans.client.setSessionConfigOption({
      sessionId: full.sessionId,
      configId: "brave",
      type: "boolean",
      value: true,
    });
    assert.equal(set.configOptions.find((o) => o.id === "brave")!.currentValue, true);
  },
);

test("set_mode and the mode option stay in sync both ways, with the matching notifications and hooks", async () => {
  const modeChanges: Array<Omit<ModeChange, "session">> = [];
  const configChanges: Array<Omit<ConfigChange, "session">> = [];
  const h = await connectToolkit(
    declared({
      onModeChange: ({ session: _s, ...change }) => void modeChanges.push(change),
      onConfigChange: ({ session: _s, ...change }) => void configChanges.push(change),
    }),
  );
  const { sessionId } = await h.client.newSession(newParams);

  await h.client.setSessionMode({ sessionId, modeId: "code" });
  await until(() => h.updates.length === 1, 2000, "config_option_update after set_mode");
  const afterMode = h.updates[0]!.update as { sessionUpdate: string; configOptions: SessionConfigOption[] };
  assert.equal(afterMode.sessionUpdate, "config_option_update");
  assert.equal(afterMode.configOptions[0]!.currentValue, "code");

  const viaOption = await h.client.setSessionConfigOption({ sessionId, configId: "mode", value: "ask" });
  assert.equal(viaOption.configOptions[0]!.currentValue, "ask");
  await until(() => h.updates.length === 2, 2000, "current_mode_update after the mode option");
  assert.deepEqual(h.updates[1]!.update, { sessionUpdate: "current_mode_update", currentModeId: "ask" });

  const viaModel = await h.client.setSessionConfigOption({ sessionId, configId: "model", value: "large" });
  assert.equal(viaModel.configOptions.length, 2, "the complete list comes back");
  assert.equal(viaModel.configOptions[1]!.currentValue, "large");

  // Agent-made changes send both kinds of update.
  await h.client.prompt({ sessionId, prompt: [{ type: "text", text: "/switch code" }] });
  const kinds = h.updates.slice(2).map((n) => n.update.sessionUpdate);
  assert.ok(kinds.includes("current_mode_update") && kinds.includes("config_option_update"), kinds.join());
  assert.deepEqual(modeChanges, [
    { modeId: "code", previousModeId: "ask", source: "client" },
    { modeId: "ask", previousModeId: "code", source: "client" },
    { modeId: "code", previousModeId: "ask", source: "agent" },
  ]);
  assert.deepEqual(configChanges, [{ configId: "model", value: "large", previousValue: "small", source: "client" }]);
});

test("invalid ids and values get -32602 with a clear message; a hook can refuse a change", async () => {
  const h = await connectToolkit(
    declared({
      onConfigChange: ({ value }) => {
        if (value === "large") throw RequestError.invalidParams({ value }, "large is not available on this plan");
      },
    }),
  );
  const { sessionId } = await h.client.newSession(newParams);
  await assert.rejects(
    h.client.setSessionMode({ sessionId, modeId: "yolo" }),
    (e: RequestError) => e.code === -32602 && /unknown mode "yolo".*ask, code/.test(e.message),
  );
  await assert.rejects(
    h.client.setSessionConfigOption({ sessionId, configId: "nope", value: "x" }),
    (e: RequestError) => e.code === -32602 && /mode, model/.test(e.message),
  );
  await assert.rejects(
    h.client.setSessionConfigOption({ sessionId, configId: "model", value: "huge" }),
    (e: RequestError) => e.code === -32602 && /"small", "large"/.test(e.message),
  );
  await assert.rejects(
    h.client.setSessionConfigOption({ sessionId, configId: "model", value: "large" }),
    (e: RequestError) => /not available on this plan/.test(e.message),
  );
  await assert.rejects(
    h.client.setSessionMode({ sessionId: "sess_unknown", modeId: "ask" }),
    (e: RequestError) => e.code === -32002,
  );
  const state = h.agent.sessions.get(sessionId).settings!;
  assert.equal(state.value("model"), "small", "a refused change does not apply");
  assert.equal(state.modeId, "ask");
});

test("load and resume restore the mode and option values", async () => {
  const store = new MemorySessionStore();
  const first = await connectToolkit(declared({ store }), booleans);
  const { sessionId } = await first.client.newSession(newParams);
  await first.client.setSessionMode({ sessionId, modeId: "code" });
  await first.client.setSessionConfigOption({ sessionId, configId: "model", value: "large" });
  await first.client.setSessionConfigOption({ sessionId, configId: "brave", type: "boolean", value: true });
  await first.agent.sessions.get(sessionId).flush();

  const second = await connectToolkit(declared({ store }), booleans);
  const loaded = await second.client.loadSession({ sessionId, ...newParams });
  assert.equal(loaded.modes!.currentModeId, "code");
  assert.deepEqual(
    loaded.configOptions!.map((o) => o.currentValue),
    ["code", "large", true],
  );
  assert.ok(
    second.updates.every((n) => n.update.sessionUpdate !== "config_option_update"),
    "settings changes are not replayed",
  );

  const third = await connectToolkit(declared({ store }));
  const resumed = await third.client.resumeSession({ sessionId, cwd: newParams.cwd });
  assert.equal(resumed.modes!.currentModeId, "code");
  assert.deepEqual(
    resumed.configOptions!.map((o) => o.currentValue),
    ["code", "large"],
  );
});

test(
  "declarations: a category mode option supplies the modes; author errors throw at setup; no settings, no " +
    "handlers",
  async () => {
    const modeOption: SessionConfigOption = {
      id: "approval",
      name: "Approval",
      category: "mode",
      type: "select",
      currentValue: "auto",
      options: [
        { value: "ask", name: "Ask" },
        { value: "auto", name: "Auto" },
      ],
    };
    const resolved = resolveSettings({ configOptions: [modeOption] });
    assert.deepEqual(
      resolved.modes.map((m) => m.id),
      ["ask", "auto"],
    );
    assert.equal(resolved.defaultModeId, "auto");
    assert.equal(resolved.modeOptionId, "approval");
    assert.throws(() => resolveSettings({ modes: [{ id: "a", name: "A" }], currentModeId: "b" }), /currentModeId "b"/);
    assert.throws(
      () =>
        resolveSettings({
          modes: [
            { id: "a", name: "A" },
            { id: "a", name: "again" },
          ],
        }),
      /declared twice/,
    );
    assert.throws(
      () => resolveSettings({ configOptions: [{ ...model, currentValue: "medium" }] }),
      /not one of its values/,
    );
    assert.equal(resolveSettings({ modes: [{ id: "a", name: "A" }], modeOption: false }).options.length, 0);

    const bare = await connectToolkit({ onPrompt: async () => "end_turn" });
    const response = await bare.client.newSession(newParams);
    assert.equal(response.modes, undefined);
    assert.equal(response.configOptions, undefined);
    await assert.rejects(
      bare.client.setSessionMode({ sessionId: response.sessionId, modeId: "x" }),
      (e: RequestError) => e.code === -32601,
    );
  },
);
