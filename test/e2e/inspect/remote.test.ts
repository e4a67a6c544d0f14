/**
 * `acp inspect --url` against `acp serve` (the reference agent behind it) in a real browser, over WebSocket and over
 * Streamable HTTP: the page drives the remote agent through the inspector (the library's remote client transports),
 * files and terminals are served by the inspector's side, and the wire shows the frames as they went.
 */
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { startServe, type ServeProcess } from "../remote/support/serve-process.js";
import {
  browserSkip,
  launchBrowser,
  openInspector,
  pageErrors,
  prompt,
  startInspector,
  tempDir,
  turnEnded,
  assertText,
} from "./support.js";

const skip = browserSkip();
const TOKEN = "inspect-remote";

describe("acp inspect --url: a remote agent behind acp serve", { ...skip }, () => {
  const dir = tempDir("acpkit-inspect-remote-");
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

  for (const [name, args] of [
    ["WebSocket", () => ["--url", serve.webSocketUrl, "--remote-token", TOKEN]],
    ["Streamable HTTP", () => ["--url", serve.url, "--profile", "http", "--remote-token", TOKEN]],
  ] as const) {
    it(`${name}: a turn that reads a file through the page's client`, { timeout: 90_000 }, async () => {
      const work = join(dir, name.replace(/\W+/g, "-"));
      const inspector = await startInspector(args(), { cwd: work });
      writeFileSync(join(work, "notes.txt"), "one\ntwo\nthree\n");
      const page = await openInspector(browser, inspector.url);
      try {
        await assertText(page.getByTestId("mode"), /^remote agent: /);
        await page.getByRole("tab", { name: /sess_/ }).first().waitFor({ timeout: 30_000 });
        await prompt(page, "/read notes.txt");
        assert.match(await turnEnded(page, 1), /end_turn/);
        await page.getByTestId("msg-agent").filter({ hasText: "Read notes.txt: 3 lines" }).waitFor();
        // The agent's fs/read_text_file reached the inspector's host through the page, and was answered.
        await page.locator(".frame").filter({ hasText: "fs/read_text_file ✓ result" }).waitFor();
        await page.locator("details.stderr summary").click();
        assert.match(
          (await page.locator("details.stderr pre").textContent()) ?? "",
          name === "WebSocket" ? /over WebSocket/ : /over Streamable HTTP/,
        );
        assert.deepEqual(pageErrors(page), []);
      } finally {
        await page.close();
        await inspector.stop();
      }
    });
  }

  it("a wrong remote token: the lane closes saying why", { timeout: 60_000 }, async () => {
    const inspector = await startInspector(["--url", serve.webSocketUrl, "--remote-token", "wrong"], {
      cwd: join(dir, "wrong"),
    });
    const page = await openInspector(browser, inspector.url);
    try {
      await page
        .getByText(/Lane closed: could not reach .*401|Lane closed: could not reach/)
        .waitFor({ timeout: 30_000 });
    } finally {
      await page.close();
      await inspector.stop();
    }
  });
});
