/**
 * Cassettes in a real browser: a conversation with the reference agent exported from the page (the library's
 * recorder, in the page) and imported again shows the same timeline; stepped through frame by frame; replayed
 * against the reference agent (the library's player, in the page) it shows no divergence, and against a changed
 * agent (test/e2e/fixtures/check/changed-agent.ts: "Read" becomes "Looked at") it shows where, with the JSON path.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { readCassette } from "../../../src/wire/index.js";
import {
  browserSkip,
  FIXTURES,
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
const dir = tempDir("acpkit-inspect-cassette-");
const work = join(dir, "work");
const env = { ACPKIT_DATA_DIR: join(dir, "data") };
const cassettePath = join(dir, "exported.cassette");
let inspector: Inspector;
let browser: Browser;
let page: Page;

/** Every row of the timeline (the list shows them all: the conversation is short). */
const timeline = (page: Page) => page.locator(".frame").allTextContents();

before(async () => {
  if (skip.skip) return;
  inspector = await startInspector(["--", ...REFERENCE_AGENT], { cwd: work, env });
  writeFileSync(join(work, "notes.txt"), "one\ntwo\nthree\n");
  browser = await launchBrowser();
  page = await openInspector(browser, inspector.url);
  await page.getByRole("tab", { name: /sess_/ }).first().waitFor();
  await prompt(page, "/read notes.txt");
  await turnEnded(page, 1);
});

after(async () => {
  await browser?.close();
  await inspector?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test(
  "a cassette exported from the page and imported again shows the same timeline",
  { ...skip, timeout: 60_000 },
  async () => {
    const live = await timeline(page);
    assert.ok(live.length > 8, `a short conversation: ${live.length} frames`);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export cassette" }).click(),
    ]);
    await download.saveAs(cassettePath);
    const cassette = readCassette(readFileSync(cassettePath, "utf8"));
    assert.equal(cassette.entries.length, live.length);
    assert.equal((cassette.header.agentInfo as { name: string }).name, "acpkit-reference-agent");
    assert.equal(cassette.header.tool.name, "acp inspect");

    await page.getByLabel("Import cassette").setInputFiles(cassettePath);
    await page.getByTestId("lane-tab").filter({ hasText: "recorded" }).waitFor();
    assert.deepEqual(await timeline(page), live);
    // The conversation is folded from the recording too.
    await page.getByTestId("msg-agent").filter({ hasText: "Read notes.txt: 3 lines" }).waitFor();
    assert.deepEqual(pageErrors(page), []);
  },
);

test("a recorded lane steps through its frames one by one", { ...skip, timeout: 60_000 }, async () => {
  const inspectorCassette = await startInspector(["--cassette", cassettePath], { cwd: work, env });
  const stepper = await openInspector(browser, inspectorCassette.url);
  try {
    await stepper.getByTestId("lane-tab").filter({ hasText: "recorded" }).waitFor();
    const total = readCassette(readFileSync(cassettePath, "utf8")).entries.length;
    await assertText(stepper.getByTestId("step-position"), `frame ${total} of ${total}`);
    await assertText(stepper.getByTestId("frame-count"), `${total} frames`);
    await stepper.getByRole("button", { name: "Restart" }).click();
    await assertText(stepper.getByTestId("step-position"), `frame 0 of ${total}`);
    await assertText(stepper.getByTestId("frame-count"), "0 frames");
    await stepper.getByRole("button", { name: "Step", exact: true }).click();
    await assertText(stepper.getByTestId("frame-count"), "1 frames");
    await assertText(stepper.locator(".frame").first(), /→.*req.*initialize/);
    await stepper.getByRole("button", { name: "Step 10" }).click();
    await assertText(stepper.getByTestId("step-position"), `frame 11 of ${total}`);
    assert.equal(await stepper.locator(".frame").count(), 11);
    // The conversation so far is folded from the frames applied: the prompt's answer is not among them yet.
    await assertText(stepper.getByTestId("turn-end"), "the agent is working…");
    await stepper.getByRole("button", { name: "All" }).click();
    await assertText(stepper.getByTestId("step-position"), `frame ${total} of ${total}`);
    await stepper.getByTestId("msg-agent").filter({ hasText: "Read notes.txt: 3 lines" }).waitFor();
  } finally {
    await stepper.close();
    await inspectorCassette.stop();
  }
});

test("replayed against the reference agent from the page: no divergence", { ...skip, timeout: 60_000 }, async () => {
  await page.getByTestId("lane-tab").filter({ hasText: "recorded" }).click();
  await page.getByRole("button", { name: "Replay against the agent" }).click();
  const result = page.getByTestId("replay-result");
  await result.waitFor({ timeout: 45_000 });
  await assertText(result, /Replay completed: \d+ frames sent, \d+ compared, no divergence/);
  // The replay's own traffic is a lane of its own.
  await page.getByTestId("lane-tab").filter({ hasText: "replay" }).first().waitFor();
});

test("replayed against a changed agent: the divergence, where and what", { ...skip, timeout: 90_000 }, async () => {
  const changed = [process.execPath, join(FIXTURES, "changed-agent.js"), "--serve"];
  const other = await startInspector(["--cassette", cassettePath, "--", ...changed], { cwd: work, env });
  const replayer = await openInspector(browser, other.url);
  try {
    await replayer.getByTestId("lane-tab").filter({ hasText: "recorded" }).waitFor();
    await replayer.getByRole("button", { name: "Replay against the agent" }).click();
    const result = replayer.getByTestId("replay-result");
    await result.waitFor({ timeout: 60_000 });
    // Every place where the changed agent says "Looked at" instead of "Read": the command list, the tool call's
    // title, the answer.
    await assertText(result, /Replay completed: .* 3 divergences\b/);
    const divergence = replayer.getByTestId("divergence").filter({ hasText: "agent_message_chunk" });
    const text = (await divergence.textContent()) ?? "";
    assert.match(text, /differs: agent session\/update agent_message_chunk/);
    assert.match(
      text,
      /\$\.params\.update\.content\.text: recorded "Read notes\.txt: 3 lines, 14 characters\.", live "Looked at notes\.txt/,
    );
    // The link selects the recorded frame.
    await divergence.getByRole("button", { name: /frame #\d+/ }).click();
    await assertText(replayer.getByTestId("frame-detail"), /agent_message_chunk/);
    await replayer.screenshot({ path: join(SCREENSHOTS, "inspect-replay.png") });
    assert.deepEqual(pageErrors(replayer), []);
  } finally {
    await replayer.close();
    await other.stop();
  }
});
