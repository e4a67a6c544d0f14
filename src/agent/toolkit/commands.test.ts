import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCommand, type SlashCommand } from "./commands.js";
import { MemorySessionStore } from "./memory-session-store.js";
import { connectToolkit, until } from "./testing/harness.js";

const newParams = { cwd: "/work/project", mcpServers: [] };

function commands(ran: string[]): SlashCommand[] {
  return [
    {
      name: "web",
      description: "Search the web",
      input: { hint: "query to search for" },
      run: async (turn, args) => {
        ran.push(`web:${args}`);
        await turn.say(`searching for ${args}`);
        return "end_turn";
      },
    },
    { name: "test", description: "Run the tests", run: async (_turn, args) => void ran.push(`test:${args}`) },
  ];
}

test("parseCommand reads /name args and nothing else", () => {
  assert.deepEqual(parseCommand("/web agent client protocol"), { name: "web", args: "agent client protocol" });
  assert.deepEqual(parseCommand("  /test  "), { name: "test", args: "" });
  assert.deepEqual(parseCommand("/plan line one\nline two"), { name: "plan", args: "line one\nline two" });
  assert.equal(parseCommand("/usr/bin/env is broken"), undefined);
  assert.equal(parseCommand("please /web x"), undefined);
  assert.equal(parseCommand("/"), undefined);
});

test("available_commands_update arrives after the session/new response, then again after load", async () => {
  const store = new MemorySessionStore();
  const h = await connectToolkit({ store, commands: commands([]), onPrompt: async () => "end_turn" });
  const { sessionId } = await h.client.newSession(newParams).then((r) => (h.events.push("response:new"), r));
  await until(() => h.updates.length === 1, 2000, "available_commands_update");
  assert.deepEqual(h.events, ["response:new", "update:available_commands_update"]);
  assert.deepEqual(h.updates[0], {
    sessionId,
    update: {
      sessionUpdate: "available_commands_update",
      availableCommands: [
        { name: "web", description: "Search the web", input: { hint: "query to search for" } },
        { name: "test", description: "Run the tests" },
      ],
    },
  });

  const again = await connectToolkit({ store, commands: commands([]), onPrompt: async () => "end_turn" });
  await again.client.loadSession({ sessionId, ...newParams }).then(() => again.events.push("response:load"));
  await until(() => again.events.length === 2, 2000, "the commands after load");
  assert.deepEqual(
    again.events,
    ["response:load", "update:available_commands_update"],
    "nothing replayed before, commands after",
  );
});

test("a /command prompt runs the command; plain prompts reach onPrompt; an unknown /x lists the commands", async () => {
  const ran: string[] = [];
  const h = await connectToolkit({
    commands: commands(ran),
    onPrompt: async (turn) => {
      ran.push(`prompt:${turn.text}`);
      return "end_turn";
    },
  });
  const { sessionId } = await h.client.newSession(newParams);
  await until(() => h.updates.length === 1);
  assert.deepEqual(
    await h.client.prompt({ sessionId, prompt: [{ type: "text", text: "/web agent client protocol" }] }),
    { stopReason: "end_turn" },
  );
  await h.client.prompt({ sessionId, prompt: [{ type: "text", text: "/test" }] });
  await h.client.prompt({ sessionId, prompt: [{ type: "text", text: "fix /usr/bin/env" }] });
  assert.deepEqual(ran, ["web:agent client protocol", "test:", "prompt:fix /usr/bin/env"]);

  assert.deepEqual(await h.client.prompt({ sessionId, prompt: [{ type: "text", text: "/deploy now" }] }), {
    stopReason: "end_turn",
  });
  const reply = h.updates.at(-1)!.update as { sessionUpdate: string; content: { text: string } };
  assert.equal(reply.sessionUpdate, "agent_message_chunk");
  assert.match(reply.content.text, /Unknown command \/deploy/);
  assert.match(reply.content.text, /\/web <query to search for>: Search the web/);
  assert.match(reply.content.text, /\/test: Run the tests/);
  assert.equal(ran.length, 3, "neither a command nor onPrompt ran");
});

test("commands can change per session; invalid declarations throw", async () => {
  const h = await connectToolkit({ commands: commands([]), onPrompt: async () => "end_turn" });
  const { sessionId } = await h.client.newSession(newParams);
  await until(() => h.updates.length === 1);
  const session = h.agent.sessions.get(sessionId);
  await session.commands!.add({ name: "plan", description: "Make a plan", run: async () => "end_turn" });
  await session.commands!.remove("web");
  await until(() => h.updates.length === 3);
  const last = h.updates[2]!.update as { availableCommands: Array<{ name: string }> };
  assert.deepEqual(
    last.availableCommands.map((c) => c.name),
    ["test", "plan"],
  );
  await assert.rejects(
    async () => session.commands!.add({ name: "bad name", description: "x", run: async () => undefined }),
    /invalid slash command name/,
  );
  await assert.rejects(
    connectToolkit({ commands: [...commands([]), ...commands([])], onPrompt: async () => undefined }),
    /"web" is declared twice/,
  );
});
