/**
 * The page as a client, beyond a plain turn, against the reference agent speaking the unstable protocol (so it
 * offers session/fork): attachments embedded as resources and images, the agent's slash commands offered as you
 * type, thoughts folded, the plan as a checklist, usage, and sessions resumed and forked from the agent's list.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
  browserSkip,
  launchBrowser,
  openInspector,
  pageErrors,
  prompt,
  REFERENCE_AGENT,
  startInspector,
  tempDir,
  turnEnded,
  type Inspector,
  assertText,
} from "./support.js";

const skip = browserSkip();
const dir = tempDir("acpkit-inspect-client-");
let inspector: Inspector;
let browser: Browser;
let page: Page;
let turns = 0;

/** A 1x1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

before(async () => {
  if (skip.skip) return;
  inspector = await startInspector(["--", ...REFERENCE_AGENT, "--unstable"], {
    cwd: join(dir, "work"),
    env: { ACPKIT_DATA_DIR: join(dir, "data") },
  });
  browser = await launchBrowser();
  page = await openInspector(browser, inspector.url);
  await page.getByRole("tab", { name: /sess_/ }).first().waitFor();
});

after(async () => {
  await browser?.close();
  await inspector?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function turn(text: string): Promise<string> {
  await prompt(page, text);
  return turnEnded(page, ++turns);
}

test("attachments go as an embedded resource and an image", { ...skip, timeout: 60_000 }, async () => {
  await page.locator(".composer input[type=file]").setInputFiles([
    { name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from("# Notes\none\ntwo\n") },
    { name: "dot.png", mimeType: "image/png", buffer: PNG },
  ]);
  assert.deepEqual(await page.getByRole("list", { name: "attachments" }).locator("li").allInnerTexts(), [
    "notes.md ×",
    "dot.png ×",
  ]);
  assert.match(await turn("What did I send?"), /end_turn/);
  const answer = await page.getByTestId("msg-agent").last().innerText();
  assert.match(answer, /an embedded resource file:\/\/\/notes\.md \(text\/markdown, 4 lines/);
  assert.match(answer, new RegExp(`an image \\(image/png, ${PNG.length} bytes\\)`));
});

test("the agent's slash commands are offered as you type /", { ...skip, timeout: 30_000 }, async () => {
  await page.getByLabel("prompt text").fill("/pl");
  const suggestions = page.getByRole("list", { name: "slash commands" });
  await suggestions.getByText("/plan").click();
  assert.equal(await page.getByLabel("prompt text").inputValue(), "/plan ");
});

test("the plan is a checklist; thoughts are folded; usage is shown", { ...skip, timeout: 60_000 }, async () => {
  assert.match(await turn("/plan"), /end_turn/);
  const plan = page.getByTestId("plan").last();
  assert.equal(await plan.locator("li").count(), 4);
  assert.equal(await plan.locator("li.plan-completed").count(), 4);
  assert.match(await turn("/think the weather"), /end_turn/);
  const thought = page.getByTestId("thought").last();
  assert.equal(await thought.getAttribute("open"), null, "folded");
  await thought.locator("summary").click();
  assert.match(await thought.innerText(), /Let me think about the weather\./);
  assert.match(await turn("/usage"), /end_turn/);
  await assertText(page.locator(".usage"), /^\d[\d,]* \/ 128,000 tokens · 0 USD$/);
});

test(
  "a session resumed and one forked, from the agent's list in a new lane",
  { ...skip, timeout: 60_000 },
  async () => {
    // A session's tab shows its title once the agent gave one; its id is the tab's title attribute.
    const first = (await page
      .getByRole("tablist", { name: "sessions" })
      .getByRole("tab")
      .first()
      .getAttribute("title"))!;
    assert.match(first, /^sess_/);
    await page.getByRole("button", { name: "+ Client lane" }).click();
    await page.getByTestId("lane-tab").nth(1).waitFor();
    await page.getByRole("tablist", { name: "sessions" }).getByRole("tab", { selected: true }).waitFor();
    await page.getByRole("button", { name: "List sessions" }).click();
    const row = page.locator(".session-list li").filter({ hasText: first });
    await row.getByRole("button", { name: "Resume" }).click();
    await page
      .locator(".session-bar")
      .filter({ hasText: `${first} (resume)` })
      .waitFor();
    // Resuming replays nothing; the session goes on.
    assert.equal(await page.getByTestId("msg-agent").count(), 0);
    await row.getByRole("button", { name: "Fork" }).click();
    await page.locator(".session-bar").filter({ hasText: "(fork)" }).waitFor();
    const forked = (await page.locator(".session-bar code").textContent())!;
    assert.notEqual(forked, first);
    assert.deepEqual(pageErrors(page), []);
  },
);
