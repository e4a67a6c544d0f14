/**
 * The wire view in a real browser, in front of a deliberately broken agent (test/e2e/fixtures/check/faulty-agent.ts,
 * `invalid-frame`: a message chunk whose text is a number): every frame in both directions with its pairing and
 * latency, the schema violation flagged on the frame it concerns with its JSON path (found by the rule engine
 * running in the page), and filters and search narrowing the list.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
  browserSkip,
  FIXTURES,
  launchBrowser,
  openInspector,
  pageErrors,
  prompt,
  SCREENSHOTS,
  startInspector,
  tempDir,
  turnEnded,
  type Inspector,
  assertText,
} from "./support.js";

const skip = browserSkip();
const dir = tempDir("acpkit-inspect-wire-");
const faulty = [process.execPath, join(FIXTURES, "faulty-agent.js"), "--serve", "--fault", "invalid-frame"];
let inspector: Inspector;
let browser: Browser;
let page: Page;

const frames = (page: Page) => page.locator(".frame");
const count = async (page: Page) => (await page.getByTestId("frame-count").textContent()) ?? "";

before(async () => {
  if (skip.skip) return;
  inspector = await startInspector(["--", ...faulty], { cwd: join(dir, "work") });
  browser = await launchBrowser();
  page = await openInspector(browser, inspector.url);
  await page
    .getByRole("tab", { name: /faulty/ })
    .first()
    .waitFor();
  await prompt(page, "hi");
  await turnEnded(page, 1);
});

after(async () => {
  await browser?.close();
  await inspector?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test(
  "every frame is listed, each request paired with its answer and the latency",
  { ...skip, timeout: 30_000 },
  async () => {
    assert.match(await count(page), /^7 frames · 1 with errors/);
    const initialize = frames(page).nth(0);
    await assertText(initialize, /→.*req.*initialize.*#0.*↘ 1/);
    const answer = frames(page).nth(1);
    await assertText(answer, /←.*resp.*initialize ✓ result.*#0.*↖ 0.*\d+\.\d ms/);
    // Keyboard: select the request, Enter jumps to its answer.
    await initialize.click();
    await page.getByRole("listbox", { name: "frames" }).press("Enter");
    // The detail follows the selection on the next render: waited for, not read at once.
    await assertText(page.getByTestId("frame-detail"), /#1 agent → client · initialize ✓ result/);
    assert.deepEqual(pageErrors(page), []);
  },
);

test(
  "the schema violation is flagged on the agent's frame, at its JSON path",
  { ...skip, timeout: 30_000 },
  async () => {
    await page.getByLabel("errors only").check();
    assert.match(await count(page), /^1 of 7 frames/);
    const bad = frames(page).first();
    await assertText(bad, /←.*notif.*session\/update · agent_message_chunk.*⚠ 1/);
    await bad.click();
    const detail = page.getByTestId("frame-detail");
    const finding = detail.getByTestId("finding");
    assert.match(
      (await finding.textContent()) ?? "",
      /error schema \(agent\):.*expected string, received number 42.*at \$\.params\.update\.content\.text/,
    );
    // The JSON tree opens along the path and marks the value.
    const marked = detail.locator(".json-mark");
    await assertText(marked.last(), /"text": 42/);
    await page.screenshot({ path: join(SCREENSHOTS, "inspect-finding.png") });
    await page.getByLabel("errors only").uncheck();
  },
);

test("filters and search narrow the timeline", { ...skip, timeout: 30_000 }, async () => {
  await page.getByLabel("filter by method").fill("session/new");
  assert.match(await count(page), /^2 of 7 frames/);
  await page.getByLabel("filter by method").fill("");
  await page.getByLabel("filter by direction").selectOption("agent");
  assert.match(await count(page), /^4 of 7 frames/);
  for (const text of await frames(page).allTextContents()) assert.match(text, /←/);
  await page.getByLabel("filter by direction").selectOption("");
  await page.getByLabel("search frames").fill('"stopReason"');
  assert.match(await count(page), /^1 of 7 frames/);
  await page.getByLabel("search frames").fill("nothing-like-this");
  assert.match(await count(page), /^0 of 7 frames/);
  await page.getByLabel("search frames").fill("");
  assert.match(await count(page), /^7 frames/);
});

test(
  "the sequence view draws the same frames as arrows between the two sides",
  { ...skip, timeout: 30_000 },
  async () => {
    await page.getByRole("button", { name: "Sequence" }).click();
    const rows = page.locator(".seq-row");
    assert.equal(await rows.count(), 7);
    assert.match((await rows.nth(0).getAttribute("class")) ?? "", /client/);
    assert.match((await rows.nth(1).getAttribute("class")) ?? "", /agent/);
    await assertText(rows.nth(1), /initialize ✓ result #0 \(\d+\.\d ms\)/);
    await page.screenshot({ path: join(SCREENSHOTS, "inspect-sequence.png") });
    await page.getByRole("button", { name: "List", exact: true }).click();
  },
);

test(
  "acp check agent from the page: the report, each failure with its finding, JSON path, frame and spec section",
  { ...skip, timeout: 180_000 },
  async () => {
    await page.getByLabel("Scenarios").fill("initialize,prompt.turn");
    await page.getByRole("button", { name: "Run acp check agent" }).click();
    const report = page.getByTestId("check-report");
    await report.waitFor({ timeout: 170_000 });
    const failed = report.locator("tr.status-failed").filter({ hasText: "prompt.turn" });
    await failed.waitFor();
    const summary = failed.locator("details summary").filter({ hasText: "schema" }).first();
    assert.match(
      (await summary.textContent()) ?? "",
      /schema \(agent\) at \$\.params\.update\.content\.text: .*received number 42/,
    );
    assert.equal(
      await summary.getByRole("link", { name: "spec" }).getAttribute("href"),
      "https://agentclientprotocol.com/protocol/schema",
    );
    assert.match(
      (await failed.getByRole("link", { name: "prompt.turn" }).getAttribute("href")) ?? "",
      /^https:\/\/agentclientprotocol\.com\/protocol\/prompt-turn/,
    );
    await summary.click();
    // The quoted frame, as a tree with the failing path marked; and its link to the live frames of the wire.
    await assertText(failed.locator(".json-mark").last(), /"text": 42/);
    await assertText(report.locator("tr").filter({ hasText: "initialize" }).first(), /passed/);
    await page.screenshot({ path: join(SCREENSHOTS, "inspect-check.png") });
    await failed.getByRole("button", { name: "find session/update frames with errors in the wire" }).click();
    await page
      .getByTestId("frame-count")
      .filter({ hasText: /^1 of 7 frames/ })
      .waitFor();
    assert.equal(await page.getByLabel("errors only").isChecked(), true);
  },
);
