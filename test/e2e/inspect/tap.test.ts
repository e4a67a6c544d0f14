/**
 * `acp inspect --tap` as the agent command of `acp exec` (an editor in miniature) in front of the reference agent:
 * the page shows the editor's conversation live, read-only, and the exec's output is exactly what it is without
 * the inspector in between (every byte passed through unchanged).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { acp } from "../wire/support.js";
import {
  ACP,
  browserSkip,
  launchBrowser,
  openInspector,
  REFERENCE_AGENT,
  SCREENSHOTS,
  tempDir,
  assertText,
} from "./support.js";

const skip = browserSkip();
const dir = tempDir("acpkit-inspect-tap-");
const env = { ACPKIT_DATA_DIR: join(dir, "data") };
let browser: Browser;

const quote = (words: readonly string[]) => words.map((word) => `'${word}'`).join(" ");

before(async () => {
  if (!skip.skip) browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function waitForFile(path: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8");
      if (text.endsWith("\n")) return text.trim();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${path} was not written in ${timeoutMs} ms`);
}

test(
  "between acp exec and the reference agent: the traffic shows live, the exec's output is unchanged",
  { ...skip, timeout: 120_000 },
  async () => {
    const turn = "/slow 6000";
    const direct = await acp(["exec", "--agent", quote(REFERENCE_AGENT), turn], { cwd: dir, env });
    assert.equal(direct.code, 0, direct.stderr);

    const urlFile = join(dir, "inspector.url");
    const tapped = [process.execPath, ACP, "inspect", "--tap", "--url-file", urlFile, "--", ...REFERENCE_AGENT];
    const running = acp(["exec", "--agent", quote(tapped), turn], { cwd: dir, env });
    const url = await waitForFile(urlFile, 30_000);
    const page = await openInspector(browser, url);
    try {
      const lane = page.getByTestId("lane-tab").filter({ hasText: "tap" });
      await lane.waitFor();
      await assertText(page.getByTestId("mode"), /^tap: /);
      // Live: the turn is still running while the page shows it.
      await page.getByText("Working for 6000 ms").waitFor({ timeout: 20_000 });
      await assertText(page.getByTestId("turn-end").last(), "the agent is working…");
      assert.equal(await page.getByLabel("prompt text").count(), 0, "a tapped lane is read-only");
      await page.locator(".frame").filter({ hasText: "session/prompt" }).first().waitFor();
      await page.screenshot({ path: join(SCREENSHOTS, "inspect-tap.png") });

      const run = await running;
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, direct.stdout);
      // The end of the turn reached the page before the inspector stopped with the agent.
      await page.getByTestId("turn-end").filter({ hasText: "turn ended: end_turn" }).waitFor({ timeout: 10_000 });
      await page.locator(".frame").filter({ hasText: "session/prompt ✓ result" }).waitFor();
    } finally {
      await page.close();
    }
  },
);
