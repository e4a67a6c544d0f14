/**
 * `acp inspect -- acp agent` in a real browser: the page is a client of the reference agent (the library's client,
 * transport and session model running in Chromium). A turn streams its text, a write shows its diff card after the
 * permission dialog is answered by clicking, a command's terminal fills while it runs, cancel ends a turn
 * `cancelled`, and a session is loaded back in a second lane (a new agent process) from the agent's session list.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
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
  SCREENSHOTS,
  startInspector,
  tempDir,
  turnEnded,
  type Inspector,
  assertText,
} from "./support.js";

const skip = browserSkip();
const dir = tempDir("acpkit-inspect-turn-");
const work = join(dir, "work");
let inspector: Inspector;
let browser: Browser;
let page: Page;

before(async () => {
  if (skip.skip) return;
  inspector = await startInspector(["--", ...REFERENCE_AGENT], {
    cwd: work,
    env: { ACPKIT_DATA_DIR: join(dir, "data") },
  });
  writeFileSync(join(work, "notes.txt"), "one\ntwo\nthree\n");
  browser = await launchBrowser();
  page = await openInspector(browser, inspector.url);
  await page.getByRole("tab", { name: /sess_/ }).first().waitFor();
});

after(async () => {
  await browser?.close();
  await inspector?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a turn streams its text into the conversation", { ...skip, timeout: 60_000 }, async () => {
  await prompt(page, "/stream 40 streamed");
  assert.match(await turnEnded(page, 1), /turn ended: end_turn/);
  const agent = page.getByTestId("msg-agent").last();
  const text = await agent.innerText();
  assert.match(text, /streamed 1\b/);
  assert.match(text, /streamed 40\b/);
  assert.deepEqual(pageErrors(page), []);
});

test(
  "a write asks permission in a dialog; clicking Allow once writes the file and shows its diff",
  { ...skip, timeout: 60_000 },
  async () => {
    await prompt(page, "/edit notes.txt two => TWO");
    const dialog = page.getByTestId("permission-dialog");
    await dialog.waitFor();
    await assertText(dialog, /permission/i);
    await page.screenshot({ path: join(SCREENSHOTS, "inspect-permission.png") });
    await dialog.getByRole("button", { name: /Allow once/ }).click();
    assert.match(await turnEnded(page, 2), /end_turn/);
    const diff = page.getByTestId("diff").last();
    await diff.waitFor();
    const table = (await diff.textContent()) ?? "";
    assert.match(table, /two/);
    assert.match(table, /TWO/);
    assert.match(table, /\+1/);
    assert.equal(readFileSync(join(work, "notes.txt"), "utf8"), "one\nTWO\nthree\n");
    await diff.getByRole("button", { name: "Side by side" }).click();
    await diff.locator("table.split").waitFor();
    // The changed line side by side: the old on the left, the new on the right, in one row.
    const changed = diff.locator("table.split tr").filter({ has: page.locator("td.removed") });
    assert.equal(await changed.count(), 1);
    assert.deepEqual(await changed.locator("td.text").allTextContents(), ["two", "TWO"]);
  },
);

test("a command's terminal output appears while it runs", { ...skip, timeout: 60_000 }, async () => {
  await page.getByLabel("Mode", { exact: true }).selectOption("code");
  await prompt(page, "/run echo first-line; sleep 2; echo second-line");
  const terminal = page.getByTestId("terminal").last();
  const output = terminal.locator(".term-out");
  await output.getByText("first-line").waitFor({ timeout: 20_000 });
  // Live: the first line is shown while the command still runs.
  await assertText(terminal, /running…/);
  assert.doesNotMatch((await output.textContent()) ?? "", /second-line/);
  await output.getByText(/second-line/).waitFor({ timeout: 20_000 });
  assert.match(await turnEnded(page, 3), /end_turn/);
  await assertText(terminal, /exit 0/);
  await page.screenshot({ path: join(SCREENSHOTS, "inspect-turn.png") });
});

test("Cancel ends a running turn cancelled", { ...skip, timeout: 60_000 }, async () => {
  await prompt(page, "/slow 20000");
  await page.getByText("Working for 20000 ms").waitFor();
  await page.getByRole("button", { name: "Cancel" }).click();
  assert.match(await turnEnded(page, 4, 10_000), /turn ended: cancelled/);
  // The wire shows the client's session/cancel and the prompt's answer.
  await page.getByLabel("filter by method").fill("session/cancel");
  await page.locator(".frame").filter({ hasText: "session/cancel" }).first().waitFor();
  await page.getByLabel("filter by method").fill("");
});

test(
  "a session is loaded back in a new lane, from the agent's session list",
  { ...skip, timeout: 60_000 },
  async () => {
    const first = await page.getByRole("tab", { name: /sess_/ }).first().getAttribute("title");
    assert.ok(first);
    await page.getByRole("button", { name: "+ Client lane" }).click();
    await page.getByTestId("lane-tab").nth(1).waitFor();
    await page.getByRole("tab", { name: /sess_/ }).first().waitFor();
    await page.getByRole("button", { name: "List sessions" }).click();
    const row = page.locator(".session-list li").filter({ hasText: first });
    await row.getByRole("button", { name: "Load" }).click();
    await page
      .getByRole("tab", { name: /sess_/, selected: true })
      .filter({ hasText: first.slice(0, 6) })
      .waitFor();
    // The history replayed by the agent: the first turn's streamed answer and the edit.
    await page.getByTestId("msg-agent").filter({ hasText: "streamed 40" }).first().waitFor();
    await page.getByText("/edit notes.txt two => TWO").first().waitFor();
    assert.deepEqual(pageErrors(page), []);
  },
);
