/**
 * `acp inspect --attach URL SESSION` in a real browser, against a real `acp serve` (the reference agent behind it,
 * shared sessions on) whose session another client drives over WebSocket: the inspector's observer lane shows the
 * session's history, then the other client's turn live, its tool call pending while the agent waits for that
 * client's permission answer (observers are not asked, but are shown the request and its options until it is settled), and no prompt box or permission dialog of its own; the lane closes when the session ends.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { startServe, type ServeProcess } from "../remote/support/serve-process.js";
import { acpkitParticipant, type TestParticipant } from "../shared/support/participants.js";
import {
  assertText,
  browserSkip,
  launchBrowser,
  openInspector,
  pageErrors,
  SCREENSHOTS,
  startInspector,
  tempDir,
} from "./support.js";

const skip = browserSkip();
const TOKEN = "inspect-attach";

describe("acp inspect --attach: observing a session another client drives", { ...skip }, () => {
  const dir = tempDir("acpkit-inspect-attach-");
  let serve: ServeProcess;
  let browser: Browser;
  before(async () => {
    mkdirSync(join(dir, "server"));
    serve = await startServe(["--token", TOKEN, "--cwd", join(dir, "server")], { ACPKIT_DATA_DIR: join(dir, "data") });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "history, then the other client's turn live with its tool call awaiting permission, read-only",
    { timeout: 90_000 },
    async () => {
      const target = { url: serve.url, webSocketUrl: serve.webSocketUrl, token: TOKEN };
      let owner: TestParticipant | undefined = await acpkitParticipant("driver", target, "websocket");
      const { sessionId } = await owner.request("session/new", { cwd: join(dir, "server"), mcpServers: [] });
      await owner.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/stream 3 before" }] });

      const inspector = await startInspector(["--attach", serve.url, sessionId, "--remote-token", TOKEN], {
        cwd: join(dir, "inspector"),
      });
      const page = await openInspector(browser, inspector.url);
      try {
        const lane = page.getByTestId("lane-tab").filter({ hasText: "observer" });
        await lane.waitFor({ timeout: 30_000 });
        await assertText(lane, new RegExp(`observing ${sessionId}`));
        await lane.click();
        // The history, replayed on attach.
        await page.getByText("before 3").waitFor({ timeout: 30_000 });
        // The other client's prompt, with who sent it, and its turn's end (the server's shared-session updates).
        await page.getByTestId("msg-user").filter({ hasText: "(driver) /stream 3 before" }).waitFor();
        await assertText(page.getByTestId("turn-end").first(), /turn ended: end_turn/);

        // The other client's next turn, live: a write the reference agent (ask mode) asks permission for.
        let release!: () => void;
        owner.permissionGate = new Promise<void>((resolve) => (release = resolve));
        owner.permissionAnswer = "allow_once";
        const turn = owner.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "/write observed.txt seen from afar" }],
        });
        // The write waits on the driving client's answer (observers are not asked): its card shows it pending.
        const card = page.getByTestId("tool-card").filter({ hasText: "observed.txt" });
        await assertText(card.locator(".badge"), /^pending$/, 30_000);
        // The request itself, as the server tells observers: what it is about, its options, read-only.
        await assertText(
          page.getByTestId("observed-permission"),
          /asks the session's controllers for permission: .*observed\.txt.*\(.*Allow.*\); waiting for a controller's answer/,
          30_000,
        );
        assert.equal(await page.getByLabel("prompt text").count(), 0, "an observer does not prompt");
        assert.equal(await page.getByTestId("permission-dialog").count(), 0, "nor answer the agent");
        await page.screenshot({ path: join(SCREENSHOTS, "inspect-attach.png") });

        release();
        assert.equal((await turn).stopReason, "end_turn");
        assert.equal(readFileSync(join(dir, "server", "observed.txt"), "utf8"), "seen from afar");
        await assertText(card.locator(".badge"), /^completed$/, 30_000);
        assert.equal(await page.getByTestId("observed-permission").count(), 0, "answered: no longer waiting");
        await page.getByTestId("turn-end").nth(1).waitFor();
        // Those updates are not in ACP v1's schema: flagged as warnings that say whose they are, not as errors; the
        // observer's own frames (initialize answered before session/attach) raise nothing else.
        const received = page.locator(".frame").filter({ hasText: "prompt_received" }).first();
        await received.click();
        await page
          .getByTestId("finding")
          .filter({ hasText: /warning.*RFD #533/ })
          .first()
          .waitFor();
        assert.equal(await page.locator(".frame.bad").count(), 0, "no frame is an error");

        // The session ends with its only driving client: the lane says so.
        owner.close();
        owner = undefined;
        await page.getByText(/Lane closed: the observed session ended/).waitFor({ timeout: 30_000 });
        assert.deepEqual(pageErrors(page), []);
      } finally {
        owner?.close();
        await page.close();
        await inspector.stop();
      }
    },
  );
});
