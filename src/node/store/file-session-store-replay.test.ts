/**
 * Whatever the toolkit accepts into a file store can be replayed by `session/load` under the same message limit:
 * prompt blocks that could not be replayed are refused at the door with a reason, agent updates too large to send
 * are refused before they are recorded, and the session stays loadable either way.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { MessageTooLargeError } from "../../jsonrpc/local-errors.js";
import { RequestError } from "../../jsonrpc/request-error.js";
import type { ContentBlock, SessionNotification } from "../../protocol/index.js";
import { NOT_REPLAYABLE, updateMessageBytes } from "../../agent/toolkit/replay-limit.js";
import { connectToolkit } from "../../agent/toolkit/testing/harness.js";
import type { PromptHandler } from "../../agent/toolkit/prompt-turn.js";
import { FileSessionStore } from "./file-session-store.js";

const LIMIT = 4096;
const cwd = "/work";
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempStore(): { dir: string; store: FileSessionStore } {
  const dir = mkdtempSync(path.join(tmpdir(), "acpkit-replay-"));
  dirs.push(dir);
  return { dir, store: new FileSessionStore({ dir }) };
}

/** Each kind of block that a replay cannot split, holding `n` characters of payload. */
const blocks: Record<string, (n: number) => ContentBlock> = {
  image: (n) => ({ type: "image", mimeType: "image/png", data: "A".repeat(n) }),
  audio: (n) => ({ type: "audio", mimeType: "audio/wav", data: "B".repeat(n) }),
  "resource (text)": (n) => ({
    type: "resource",
    resource: { uri: "file:///work/a.txt", mimeType: "text/plain", text: "c".repeat(n) },
  }),
  "resource (blob)": (n) => ({ type: "resource", resource: { uri: "file:///work/a.bin", blob: "D".repeat(n) } }),
  resource_link: (n) => ({ type: "resource_link", name: "a", uri: `file:///work/${"e".repeat(n)}` }),
};

const promptBytes = (sessionId: string, prompt: ContentBlock[]) =>
  new TextEncoder().encode(
    JSON.stringify({ jsonrpc: "2.0", id: 99, method: "session/prompt", params: { sessionId, prompt } }),
  ).length;

/**
 * The largest `n` (0 at least) for which `fits(n)` holds, `fits` holding up to some `n` and never after it (a
 * message's size grows with its payload): found by bisection, as a count from 0 would find it.
 */
function largest(fits: (n: number) => boolean): number {
  let low = 0;
  let high = 1;
  while (fits(high)) [low, high] = [high, high * 2];
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle;
  }
  return low;
}

/** The largest `n` whose block still fits in a `session/prompt` under LIMIT (the request itself is accepted). */
function largestPromptable(sessionId: string, make: (n: number) => ContentBlock): number {
  return largest((n) => promptBytes(sessionId, [make(n)]) + 1 <= LIMIT);
}

/** The largest `n` whose block still fits in its replayed `session/update` under LIMIT. */
function largestReplayable(sessionId: string, make: (n: number) => ContentBlock): number {
  return largest(
    (n) => updateMessageBytes(sessionId, { sessionUpdate: "user_message_chunk", content: make(n) }) <= LIMIT,
  );
}

const echo: PromptHandler = async (turn) => void (await turn.say(`ok ${turn.prompt.length}`));
const open = (store: FileSessionStore, onPrompt: PromptHandler = echo) =>
  connectToolkit({ store, onPrompt }, {}, {}, { maxMessageBytes: LIMIT });
const userBlocks = (updates: SessionNotification[]) =>
  updates
    .filter((n) => n.update.sessionUpdate === "user_message_chunk")
    .map((n) => (n.update as { content: ContentBlock }).content);

async function expectNotReplayable(promise: Promise<unknown>, index: number, type: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof RequestError, `a RequestError, got ${String(error)}`);
    assert.equal(error.code, -32602);
    const data = error.data as Record<string, unknown>;
    assert.equal(data.reason, NOT_REPLAYABLE);
    assert.equal(data.index, index);
    assert.equal(data.type, type);
    assert.equal(data.maxMessageBytes, LIMIT);
    assert.ok((data.messageBytes as number) > LIMIT);
    assert.match(
      error.message,
      new RegExp(
        `prompt block ${index} \\(${type}\\) is too large to be replayed.*over this connection's ` +
          `${LIMIT}-byte message limit`,
      ),
    );
    return true;
  });
}

for (const [label, make] of Object.entries(blocks)) {
  test(
    `a prompt with ${label} just under the message limit is refused at the door (-32602, why and the limit); ` +
      `the session stays loadable`,
    async () => {
      const { dir, store } = tempStore();
      const first = await open(store);
      const { sessionId } = await first.client.newSession({ cwd, mcpServers: [] });
      await first.client.prompt({ sessionId, prompt: [{ type: "text", text: "hello" }] });
      const big = make(largestPromptable(sessionId, make));
      const type = big.type;
      // The request fits the limit; only its replay would not.
      assert.ok(promptBytes(sessionId, [big]) < LIMIT);
      await expectNotReplayable(first.client.prompt({ sessionId, prompt: [big] }), 0, type);
      // Also as the second block of a prompt, one character over the replay bound: nothing of that prompt is stored.
      const mixed: ContentBlock[] = [{ type: "text", text: "look" }, make(largestReplayable(sessionId, make) + 1)];
      assert.ok(promptBytes(sessionId, mixed) < LIMIT);
      await expectNotReplayable(first.client.prompt({ sessionId, prompt: mixed }), 1, type);
      // The turn slot is free: the next prompt runs.
      assert.deepEqual(await first.client.prompt({ sessionId, prompt: [{ type: "text", text: "again" }] }), {
        stopReason: "end_turn",
      });

      const second = await open(new FileSessionStore({ dir }));
      const loaded = await second.client.loadSession({ sessionId, cwd, mcpServers: [] });
      assert.equal(loaded?._meta?.["acpkit/replay"], undefined, "nothing skipped");
      assert.deepEqual(userBlocks(second.updates), [
        { type: "text", text: "hello" },
        { type: "text", text: "again" },
      ]);
    },
  );

  test(
    `${label}: every prompt size around the replay bound is either accepted and replayed intact, or refused; ` +
      `never stored and skipped`,
    async () => {
      const { dir, store } = tempStore();
      const first = await open(store);
      const { sessionId } = await first.client.newSession({ cwd, mcpServers: [] });
      const bound = largestReplayable(sessionId, make);
      const accepted: ContentBlock[] = [];
      let refused = 0;
      for (let n = bound - 6; n <= Math.min(bound + 6, largestPromptable(sessionId, make)); n++) {
        const block = make(n);
        try {
          await first.client.prompt({ sessionId, prompt: [block] });
          accepted.push(block);
        } catch (error) {
          assert.ok(
            error instanceof RequestError && (error.data as { reason?: unknown }).reason === NOT_REPLAYABLE,
            `refused for its size only: ${String(error)}`,
          );
          assert.ok(n > bound, `refused only above the bound (n=${n}, bound=${bound})`);
          refused++;
        }
      }
      assert.equal(accepted.length, 7, "every size up to the bound is accepted");
      assert.ok(refused > 0, "sizes above the bound are refused");

      const second = await open(new FileSessionStore({ dir }));
      const loaded = await second.client.loadSession({ sessionId, cwd, mcpServers: [] });
      assert.equal(loaded?._meta?.["acpkit/replay"], undefined, "nothing skipped");
      assert.deepEqual(userBlocks(second.updates), accepted, "each accepted block comes back whole, in order");
    },
  );
}

test(
  "an agent update too large to send is refused before it is recorded; the turn's later updates still go out " +
    "and the session loads",
  async () => {
    const { dir, store } = tempStore();
    const tooLarge: unknown[] = [];
    const first = await open(store, async (turn) => {
      await turn.say("before");
      const call = turn.toolCall({ title: "read", kind: "read" });
      try {
        await call.update({ content: [{ type: "content", content: { type: "text", text: "x".repeat(LIMIT) } }] });
      } catch (error) {
        tooLarge.push(error);
      }
      try {
        await turn.say("y".repeat(LIMIT));
      } catch (error) {
        tooLarge.push(error);
      }
      await call.complete();
      await turn.say("after");
    });
    const { sessionId } = await first.client.newSession({ cwd, mcpServers: [] });
    assert.deepEqual(await first.client.prompt({ sessionId, prompt: [{ type: "text", text: "go" }] }), {
      stopReason: "end_turn",
    });
    assert.equal(tooLarge.length, 2);
    for (const error of tooLarge)
      assert.ok(error instanceof MessageTooLargeError && /^An outgoing/.test(error.message), String(error));
    const seen = first.updates.map((n) => n.update.sessionUpdate);

    const second = await open(new FileSessionStore({ dir }));
    const loaded = await second.client.loadSession({ sessionId, cwd, mcpServers: [] });
    assert.equal(loaded?._meta?.["acpkit/replay"], undefined, "nothing skipped");
    // The history is what the client saw: the prompt, then exactly the updates sent live.
    assert.deepEqual(
      second.updates.map((n) => n.update.sessionUpdate),
      ["user_message_chunk", ...seen],
    );
    assert.ok(
      seen.includes("tool_call") && seen.filter((kind) => kind === "agent_message_chunk").length === 2,
      seen.join(),
    );
  },
);
