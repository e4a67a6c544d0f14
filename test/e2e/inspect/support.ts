/**
 * What the inspector's browser tests share: the real `acp inspect` started as a child process (its URL read from
 * what it prints), and Debian's Chromium driven by playwright-core (nothing downloads a browser: the executable is
 * `/usr/bin/chromium`, or `ACPKIT_CHROMIUM`). Without a Chromium the tests skip, saying why, unless
 * `ACPKIT_REQUIRE_BROWSER=1` or `ACPKIT_REQUIRE_SERVICES=1` (CI, whose .ci/run installs chromium), where they fail.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { ACP_CLI } from "../support/programs.js";

export const ACP = ACP_CLI;
export const FIXTURES = fileURLToPath(new URL("../fixtures/check/", import.meta.url));
export const REFERENCE_AGENT = [process.execPath, ACP, "agent"];
export const CHROMIUM = process.env.ACPKIT_CHROMIUM ?? "/usr/bin/chromium";
/**
 * Where the tests put their screenshots: a temporary folder, or, with `ACPKIT_UPDATE_SCREENSHOTS=1`, docs/images/
 * (the screenshots the README shows; regenerate them that way, so that a test run never edits the checkout).
 */
export const SCREENSHOTS =
  process.env.ACPKIT_UPDATE_SCREENSHOTS === "1"
    ? fileURLToPath(new URL("../../../../docs/images/", import.meta.url))
    : mkdtempSync(join(tmpdir(), "acpkit-inspect-screenshots-"));

/** `{ skip: reason }` when no Chromium is installed (and CI does not require one). */
export function browserSkip(): { skip?: string } {
  if (existsSync(CHROMIUM)) return {};
  if (process.env.ACPKIT_REQUIRE_BROWSER === "1" || process.env.ACPKIT_REQUIRE_SERVICES === "1") return {};
  return { skip: `no Chromium at ${CHROMIUM} (apt-get install chromium, or set ACPKIT_CHROMIUM)` };
}

/** A fresh real directory. */
export function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Debian's Chromium, headless, with a fresh profile (Playwright gives each launch its own temporary one). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export interface Inspector {
  readonly url: string;
  readonly child: ChildProcess;
  stderr(): string;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `acp inspect ARGS` and resolves with its URL (first line of stdout). */
export function startInspector(
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<Inspector> {
  mkdirSync(options.cwd, { recursive: true });
  const child = spawn(process.execPath, [ACP, "inspect", ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`acp inspect printed no URL in 30 s; stderr: ${stderr}`)), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = /^(http:\/\/\S+)\n/.exec(stdout);
      if (!line) return;
      clearTimeout(timer);
      resolve({
        url: line[1]!,
        child,
        stderr: () => stderr,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          return exited;
        },
      });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`acp inspect exited (${code}) before printing its URL; stderr: ${stderr}`));
    });
  });
}

/** Opens the inspector in a new page and waits for its feed to connect. */
export async function openInspector(
  browser: Browser,
  url: string,
  viewport = { width: 1400, height: 900 },
): Promise<Page> {
  const page = await browser.newPage({ viewport, acceptDownloads: true });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  (page as Page & { errors?: string[] }).errors = errors;
  await page.goto(url);
  await page
    .getByRole("status")
    .filter({ hasText: /^connected$/ })
    .first()
    .waitFor();
  return page;
}

/** Page errors collected by `openInspector`. */
export function pageErrors(page: Page): string[] {
  return (page as Page & { errors?: string[] }).errors ?? [];
}

/** Types a prompt into the prompt box and sends it. */
export async function prompt(page: Page, text: string): Promise<void> {
  const box = page.getByLabel("prompt text");
  await box.fill(text);
  await box.press("Enter");
}

/** Waits for the selected session's last turn to end and returns its outcome line. */
export async function turnEnded(page: Page, count = 1, timeout = 30_000): Promise<string> {
  const ended = page.getByTestId("turn-end").filter({ hasText: "turn ended" });
  await ended.nth(count - 1).waitFor({ timeout });
  return (await ended.nth(count - 1).textContent()) ?? "";
}

/**
 * Asserts that `locator`'s text equals (or matches) `expected`, waiting up to `timeout` for it: a click renders on the
 * page's next frame, so a text read at once would race the render. Fails with the last text seen.
 */
export async function assertText(locator: Locator, expected: string | RegExp, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const text = (await locator.textContent({ timeout })) ?? "";
    const matches = typeof expected === "string" ? text === expected : expected.test(text);
    if (matches || Date.now() > deadline) {
      if (typeof expected === "string") assert.equal(text, expected);
      else assert.match(text, expected);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
