/**
 * A 200,000-chunk turn (the reference agent's `/stream 200000`) in a real browser: the page stays responsive while
 * the frames pour in. Measured in the page, and reported (not pass/fail: speed is the bench's business): the time
 * between animation frames while the turn streams, and the input latency of keys typed into the prompt box
 * meanwhile (the Event Timing API: from the key's event to the next paint). What is checked: every chunk arrived,
 * folded into one message, and the timeline holds every frame.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
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
} from "./support.js";

const skip = browserSkip();
const CHUNKS = Number(process.env.ACPKIT_INSPECT_CHUNKS ?? 200_000);
const dir = tempDir("acpkit-inspect-long-");
let inspector: Inspector;
let browser: Browser;
let page: Page;

before(async () => {
  if (skip.skip) return;
  inspector = await startInspector(["--", ...REFERENCE_AGENT], {
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

interface Measured {
  frames: number[];
  inputs: Array<{ name: string; duration: number; processing: number; delay: number }>;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

test(
  `a ${CHUNKS.toLocaleString("en")}-chunk turn: every chunk arrives, the page stays responsive (measured)`,
  { ...skip, timeout: 900_000 },
  async (t) => {
    // Start measuring in the page: animation frame gaps, and Event Timing entries for key presses.
    await page.evaluate(() => {
      const state = { frames: [] as number[], inputs: [] as unknown[], last: performance.now(), on: true };
      (window as unknown as { measured: typeof state }).measured = state;
      const tick = (now: number) => {
        state.frames.push(now - state.last);
        state.last = now;
        if (state.on) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as PerformanceEventTiming[]) {
          state.inputs.push({
            name: entry.name,
            duration: entry.duration,
            processing: entry.processingEnd - entry.processingStart,
            delay: entry.processingStart - entry.startTime,
          });
        }
      }).observe({ type: "event", durationThreshold: 16, buffered: false } as PerformanceObserverInit);
    });
    const started = Date.now();
    await prompt(page, `/stream ${CHUNKS}`);
    // While it streams: type into the prompt box, a key every 250 ms.
    const box = page.getByLabel("prompt text");
    let typed = 0;
    let ended = false;
    // Polled once a second: Playwright's own polling (on animation frames, with layout) would weigh on what is measured.
    const ending = page
      .waitForFunction(
        () =>
          Array.from(document.querySelectorAll("[data-testid=turn-end]")).some((e) =>
            e.textContent?.startsWith("turn ended"),
          ),
        undefined,
        { polling: 1000, timeout: 850_000 },
      )
      .then(() => {
        ended = true;
      });
    // How long the slowest key took to be accepted, from Playwright's side: reported, never pass/fail (a loaded
    // machine may hold the page for a while; only a page that never takes a key again fails, after 5 minutes).
    let slowestPressMs = 0;
    while (!ended) {
      const pressed = Date.now();
      await box.press(typed % 20 === 19 ? "Backspace" : "x", { timeout: 300_000 });
      slowestPressMs = Math.max(slowestPressMs, Date.now() - pressed);
      typed++;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await ending;
    assert.match(await turnEnded(page, 1), /turn ended: end_turn/);
    const seconds = (Date.now() - started) / 1000;
    const measured = (await page.evaluate(() => {
      const state = (window as unknown as { measured: { on: boolean } }).measured;
      state.on = false;
      return state;
    })) as unknown as Measured;

    // Every chunk arrived and was folded into one message; the timeline holds every frame.
    const long = page.getByTestId("long-text").last();
    assert.match(
      (await long.locator(".muted").textContent()) ?? "",
      new RegExp(`${(CHUNKS + 1).toLocaleString("en")} lines`),
    );
    await page.getByLabel("filter by method").fill("agent_message_chunk");
    await page
      .getByTestId("frame-count")
      .filter({ hasText: new RegExp(`^${CHUNKS} of \\d+ frames`) })
      .waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(SCREENSHOTS, "inspect-long-turn.png") });
    assert.deepEqual(pageErrors(page), []);

    const frames = measured.frames.slice(1);
    const keys = measured.inputs.filter((entry) => entry.name.startsWith("key"));
    const report = {
      chunks: CHUNKS,
      loadAverage: loadavg().map((value) => Number(value.toFixed(1))),
      turnSeconds: Number(seconds.toFixed(1)),
      animationFrames: frames.length,
      frameMs: {
        median: Number(percentile(frames, 50).toFixed(1)),
        p95: Number(percentile(frames, 95).toFixed(1)),
        p99: Number(percentile(frames, 99).toFixed(1)),
        max: Number(Math.max(...frames).toFixed(1)),
        over50ms: frames.filter((gap) => gap > 50).length,
      },
      keysTyped: typed,
      slowestKeyPressMs: slowestPressMs,
      slowKeyEvents: keys.length,
      inputLatencyMs: {
        note: "Event Timing entries of 16 ms or more (faster ones are not reported by the browser)",
        median: keys.length
          ? Number(
              percentile(
                keys.map((k) => k.duration),
                50,
              ).toFixed(1),
            )
          : 0,
        p95: keys.length
          ? Number(
              percentile(
                keys.map((k) => k.duration),
                95,
              ).toFixed(1),
            )
          : 0,
        max: keys.length ? Number(Math.max(...keys.map((k) => k.duration)).toFixed(1)) : 0,
      },
    };
    t.diagnostic(`long turn measured in the browser: ${JSON.stringify(report)}`);
    if (process.env.ACPKIT_INSPECT_REPORT)
      writeFileSync(process.env.ACPKIT_INSPECT_REPORT, `${JSON.stringify(report, null, 2)}\n`);
  },
);
