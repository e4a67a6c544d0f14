/**
 * Accessibility of the inspector's main views in a real browser, checked with axe-core (WCAG 2.1 A and AA rules,
 * contrast included): the conversation and the wire with a frame selected, the permission dialog, the elicitation
 * form, the dark theme, a narrow window. No serious or critical violation is allowed. And the page is usable from
 * the keyboard: a prompt typed and sent, a dialog answered, with a visible focus ring.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
  browserSkip,
  launchBrowser,
  pageErrors,
  REFERENCE_AGENT,
  SCREENSHOTS,
  startInspector,
  tempDir,
  turnEnded,
  type Inspector,
} from "./support.js";

const skip = browserSkip();
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const dir = tempDir("acpkit-inspect-a11y-");
let inspector: Inspector;
let browser: Browser;
let page: Page;

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/** axe-core's WCAG 2.1 A/AA violations of the page as it is now (axe is injected past the page's CSP, tests only). */
async function violations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: AXE });
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (context: unknown, options: unknown) => Promise<{ violations: Violation[] }> };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    return result.violations;
  });
}

async function assertNoSerious(page: Page, view: string): Promise<void> {
  const found = (await violations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    found.map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help}: ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 3)
          .join("; ")}`,
    ),
    [],
    `${view}: serious accessibility violations`,
  );
}

before(async () => {
  if (skip.skip) return;
  inspector = await startInspector(["--", ...REFERENCE_AGENT], {
    cwd: join(dir, "work"),
    env: { ACPKIT_DATA_DIR: join(dir, "data") },
  });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 }, bypassCSP: true });
  await page.goto(inspector.url);
  await page.getByRole("tab", { name: /sess_/ }).first().waitFor();
});

after(async () => {
  await browser?.close();
  await inspector?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test(
  "from the keyboard: a prompt typed and sent, a permission answered, focus always visible",
  { ...skip, timeout: 60_000 },
  async () => {
    const box = page.getByLabel("prompt text");
    await box.focus();
    await page.keyboard.type("/write notes.txt hello");
    await page.keyboard.press("Enter");
    const dialog = page.getByTestId("permission-dialog");
    await dialog.waitFor();
    // Focus moved into the dialog, on the first of the agent's options, and it shows.
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement;
      const style = getComputedStyle(element);
      return {
        text: element.textContent,
        outline: style.outlineStyle,
        width: style.outlineWidth,
        inDialog: !!element.closest(".dialog"),
      };
    });
    assert.equal(focused.inDialog, true);
    assert.match(focused.text ?? "", /Allow once/);
    assert.notEqual(focused.outline, "none", "a visible focus ring");
    await assertNoSerious(page, "permission dialog");
    await page.keyboard.press("Enter");
    await turnEnded(page, 1);
    assert.deepEqual(pageErrors(page), []);
  },
);

test(
  "the conversation and the wire, a frame selected: no serious violations (light and dark)",
  { ...skip, timeout: 60_000 },
  async () => {
    await page.getByLabel("prompt text").fill("/plan");
    await page.getByLabel("prompt text").press("Enter");
    await turnEnded(page, 2);
    await page.locator(".frame").filter({ hasText: "session/prompt" }).first().click();
    await page.getByTestId("frame-detail").waitFor();
    await assertNoSerious(page, "light theme");
    await page.getByLabel("Theme").selectOption("dark");
    await assertNoSerious(page, "dark theme");
    await page.screenshot({ path: join(SCREENSHOTS, "inspect-dark.png") });
    await page.getByLabel("Theme").selectOption("light");
    await page.getByRole("button", { name: "Sequence" }).click();
    await assertNoSerious(page, "sequence view");
    await page.getByRole("button", { name: "List", exact: true }).click();
  },
);

test(
  "the elicitation form: no serious violations, answered from the keyboard",
  { ...skip, timeout: 60_000 },
  async () => {
    await page.getByLabel("prompt text").fill("/elicit");
    await page.getByLabel("prompt text").press("Enter");
    const form = page.getByTestId("elicitation-dialog");
    await form.waitFor();
    await assertNoSerious(page, "elicitation form");
    await page.keyboard.type("Ada");
    await form.getByRole("button", { name: "Send" }).focus();
    await page.keyboard.press("Enter");
    await page.getByTestId("msg-agent").filter({ hasText: 'You answered: {"name":"Ada"}' }).waitFor();
  },
);

test("a narrow window: the panes stack, nothing serious", { ...skip, timeout: 60_000 }, async () => {
  await page.setViewportSize({ width: 480, height: 900 });
  await assertNoSerious(page, "narrow window");
  const [conversation, wire] = await Promise.all([
    page.locator(".conversation").boundingBox(),
    page.locator(".wire").boundingBox(),
  ]);
  assert.ok(
    conversation && wire && wire.y >= conversation.y + conversation.height - 1,
    "the wire is below the conversation",
  );
  await page.screenshot({ path: join(SCREENSHOTS, "inspect-narrow.png"), fullPage: false });
  await page.setViewportSize({ width: 1400, height: 900 });
});

test("without the token, the browser gets a one-line refusal, not the page", { ...skip, timeout: 30_000 }, async () => {
  const other = await browser.newPage();
  const response = await other.goto(inspector.url.replace(/\?.*$/, ""));
  assert.equal(response?.status(), 401);
  assert.match(
    (await other.textContent("body")) ?? "",
    /^Unauthorized: open the inspector with the URL acp inspect printed/,
  );
  assert.equal(await other.locator("#app").count(), 0);
  await other.close();
});
