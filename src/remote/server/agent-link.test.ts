import assert from "node:assert/strict";
import { test } from "node:test";
import { AgentLink, type AgentOutput } from "./agent-link.js";
import { AGENT_TURN_SHARE_CHARS, PROCESS_TURN_SHARE_CHARS } from "./turn-share.js";

/** An output with room for everything: `whenRoom()` never waits. */
function roomyOutput(): AgentOutput & { texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    fromAgent: (_message, text) => void texts.push(text),
    agentOutputClosed: () => {},
    whenRoom: () => Promise.resolve(),
  };
}

const chunk = (i: number) => ({
  jsonrpc: "2.0" as const,
  method: "session/update",
  params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${i}` } } },
});

/** What ran first: the agent's next step after `drain()`, or a callback queued for the next turn before it. */
async function firstAfterDrain(link: AgentLink): Promise<"agent" | "the rest of the process"> {
  const order: string[] = [];
  setImmediate(() => order.push("the rest of the process"));
  await link.drain();
  order.push("agent");
  return order[0] as "agent" | "the rest of the process";
}

test("an agent that sent less than its share of the turn goes on at once", async () => {
  const output = roomyOutput();
  const link = new AgentLink(output, 1024 * 1024);
  link.send(chunk(0));
  assert.equal(await firstAfterDrain(link), "agent");
});

test("an agent that sent its share of the turn waits for the next turn; its count starts again", async () => {
  const output = roomyOutput();
  const link = new AgentLink(output, 1024 * 1024);
  let sent = 0;
  let i = 0;
  // Up to just under the share: never held.
  while (sent + 200 < AGENT_TURN_SHARE_CHARS) {
    link.send(chunk(i++));
    sent += output.texts.at(-1)!.length;
    assert.equal(await firstAfterDrain(link), "agent", `held after ${sent} chars`);
  }
  // Past it: the rest of the process runs first, once; then the agent has a whole share again.
  while (sent < AGENT_TURN_SHARE_CHARS) {
    link.send(chunk(i++));
    sent += output.texts.at(-1)!.length;
  }
  assert.equal(await firstAfterDrain(link), "the rest of the process");
  link.send(chunk(i));
  assert.equal(await firstAfterDrain(link), "agent");
});

test("agents that each sent less than their share wait once all of the process's agents sent theirs in this turn", async () => {
  const links = Array.from({ length: 16 }, () => new AgentLink(roomyOutput(), 1024 * 1024));
  await new Promise((resolve) => setImmediate(resolve)); // a fresh turn
  // Each link sends under its own share; together they pass the process's share within this turn.
  const each = Math.ceil(PROCESS_TURN_SHARE_CHARS / links.length) + 1024;
  assert.ok(each < AGENT_TURN_SHARE_CHARS);
  const big = { jsonrpc: "2.0" as const, method: "x", params: { text: "y".repeat(each) } };
  for (const link of links.slice(0, -1)) link.send(big);
  const last = links.at(-1)!;
  assert.equal(await firstAfterDrain(last), "agent", "fifteen sixteenths of the share: not spent yet");
  last.send(big);
  assert.equal(await firstAfterDrain(last), "the rest of the process", "the share spent: the last one waits too");
  // The next turn starts a fresh share: a small send goes on at once.
  await new Promise((resolve) => setImmediate(resolve));
  last.send(chunk(1));
  assert.equal(await firstAfterDrain(last), "agent");
});
