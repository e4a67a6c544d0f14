/**
 * The seam for observer lanes (watching a session another client drives: needs shared sessions, issue 18), end to
 * end except the attachment itself: an `ObserverSource` plugged into the inspector (here one that plays the frames
 * of a conversation between two other parties, pausing while the agent waits for the driving client's answer)
 * feeds an `observer` lane, and the page shows it read-only beside its own lanes: the conversation folded from the
 * frames, the agent's request waiting for the other client, no prompt box, the frames checked by the rule engine.
 * Without a source, `--attach` is refused (access.test.ts) and the page says observing is not available.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { runInspect, type InspectServer, type LaneHandle, type ObserverSource } from "@acpkit/cli/inspect";
import {
  ACP,
  browserSkip,
  launchBrowser,
  openInspector,
  pageErrors,
  SCREENSHOTS,
  tempDir,
  assertText,
} from "./support.js";

const skip = browserSkip();
const dir = tempDir("acpkit-inspect-observer-");
let browser: Browser;

before(async () => {
  if (!skip.skip) browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

const line = (value: unknown) =>
  new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", ...(value as object) })}\n`);
const update = (text: string) => ({
  method: "session/update",
  params: { sessionId: "shared-1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
});

/** Plays a conversation between another client and an agent, in two parts; `resume()` plays the second. */
function scriptedSource(): ObserverSource & { resume(): void; attached: Array<[string, string]> } {
  let resume!: () => void;
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  const attached: Array<[string, string]> = [];
  return {
    attached,
    resume: () => resume(),
    describe: (url, sessionId) => `${sessionId} at ${new URL(url).host}`,
    async observe(url: string, sessionId: string, lane: LaneHandle) {
      attached.push([url, sessionId]);
      const client = (value: unknown) => lane.bytes("client", line(value));
      const agent = (value: unknown) => lane.bytes("agent", line(value));
      client({ id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
      agent({ id: 0, result: { protocolVersion: 1, agentCapabilities: { loadSession: true } } });
      client({
        id: 1,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "text", text: "fix the bug" }] },
      });
      agent(update("Looking at the bug. "));
      agent({
        id: 7,
        method: "session/request_permission",
        params: {
          sessionId,
          toolCall: { toolCallId: "t1", title: "Edit main.ts", kind: "edit" },
          options: [{ optionId: "ok", name: "Allow once", kind: "allow_once" }],
        },
      });
      await resumed;
      client({ id: 7, result: { outcome: { outcome: "selected", optionId: "ok" } } });
      agent(update("Fixed."));
      agent({ id: 1, result: { stopReason: "end_turn" } });
      lane.end("client");
      lane.end("agent");
    },
  };
}

test(
  "an observer lane fed through the seam: read-only, the other client's conversation, live",
  { ...skip, timeout: 60_000 },
  async () => {
    const source = scriptedSource();
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    let server: InspectServer | undefined;
    const listening = new Promise<void>((resolve) => {
      void runInspect(
        {
          host: "127.0.0.1",
          port: 0,
          open: false,
          tap: false,
          attach: { url: "http://127.0.0.1:9/acp", sessionId: "shared-1" },
          cwd: dir,
          version: "test",
          acpArgv: [process.execPath, ACP],
        },
        {
          stdout: () => {},
          stderr: () => {},
          stopped,
          observerSource: source,
          onListening: (listening) => {
            server = listening;
            resolve();
          },
        },
      );
    });
    await listening;
    const page = await openInspector(browser, server!.url);
    try {
      assert.deepEqual(source.attached, [["http://127.0.0.1:9/acp", "shared-1"]]);
      const lane = page.getByTestId("lane-tab").filter({ hasText: "observer" });
      await lane.waitFor();
      await assertText(lane, /observer shared-1 at 127\.0\.0\.1:9/);
      await lane.click();
      await page.getByText("Looking at the bug.").waitFor();
      await page
        .getByText(/The agent asks session\/request_permission .*waiting for the other client's answer/)
        .waitFor();
      assert.equal(await page.getByLabel("prompt text").count(), 0, "an observer does not prompt");
      assert.equal(await page.getByTestId("permission-dialog").count(), 0, "nor answer the agent");
      assert.equal(await page.getByText("Observer attach: not available yet").count(), 0);
      await page.screenshot({ path: join(SCREENSHOTS, "inspect-observer.png") });

      source.resume();
      await page.getByTestId("turn-end").filter({ hasText: "turn ended: end_turn" }).waitFor();
      await page.getByText("Fixed.").waitFor();
      assert.equal(await page.getByText(/waiting for the other client's answer/).count(), 0);
      await page.getByText("Lane closed: the observed session ended.").waitFor();
      await assertText(page.getByTestId("frame-count"), /^8 frames$/);
      assert.deepEqual(pageErrors(page), []);
    } finally {
      await page.close();
      stop();
    }
  },
);
