/**
 * The swap race: a hostile process exchanges a directory in the middle of the path with a symlink to outside the
 * root (atomically, `renameat2(RENAME_EXCHANGE)`), over and over, while the host reads, overwrites and creates files
 * below it. The host may answer errors; it must never read, write or create anything outside. The test also shows
 * that the race was real: the swapper ran throughout, both states of the path were seen, and some requests were
 * refused. ACPKIT_RACE_ATTEMPTS sets the number of attempts (default 10,000). Where the swapper cannot run (not
 * Linux, no cc or python3, a file system without RENAME_EXCHANGE) the test is skipped, except on CI (`CI` set, on
 * Linux) or with ACPKIT_REQUIRE_RACE=1, where it fails and says why.
 *
 * Test lane: first
 */
import assert from "node:assert/strict";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { RequestError } from "../../jsonrpc/request-error.js";
import { FileSystemHost } from "./fs-host.js";
import { startSwapper, stopSwapper } from "./testing/rename-exchange.js";

const ATTEMPTS = Number(process.env.ACPKIT_RACE_ATTEMPTS ?? 10_000);
/** On CI (Linux) or when asked, a race that cannot run fails instead of skipping. */
const ci = process.env.CI !== undefined && !["", "0", "false"].includes(process.env.CI.toLowerCase());
const REQUIRED = process.env.ACPKIT_REQUIRE_RACE === "1" || (ci && process.platform === "linux");
const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-race-")));
after(() => rmSync(base, { recursive: true, force: true }));

/** Lists every file under `dir` with its content. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile())
      files[join(entry.parentPath, entry.name).slice(dir.length)] = readFileSync(
        join(entry.parentPath, entry.name),
        "utf8",
      );
  }
  return files;
}

test(
  `a directory swapped for a symlink to outside mid-path: ` + `${ATTEMPTS} reads, writes and creations, zero escapes`,
  async (t) => {
    const root = join(base, "root");
    const outside = join(base, "outside");
    mkdirSync(join(root, "mid", "sub"), { recursive: true });
    mkdirSync(join(outside, "sub"), { recursive: true });
    writeFileSync(join(root, "mid", "sub", "f.txt"), "inside");
    writeFileSync(join(outside, "sub", "f.txt"), "SECRET");
    symlinkSync(outside, join(root, "swap"));
    const before = snapshot(outside);

    const swapper = await startSwapper(join(root, "mid"), join(root, "swap"));
    if ("unavailable" in swapper) {
      if (REQUIRED)
        assert.fail(`the swap race cannot run here, and on CI it must not be skipped: ${swapper.unavailable}`);
      return t.skip(swapper.unavailable);
    }
    const host = new FileSystemHost({ roots: () => [root] });
    const counts = { ok: 0, refused: 0 };
    /** How often `mid` was seen as the directory and as the symlink (the swapper at work). */
    const seen = { directory: 0, symlink: 0 };
    const escapes: string[] = [];
    let swapperRanThroughout: boolean;
    try {
      for (let i = 0; i < ATTEMPTS; i++) {
        if (lstatSync(join(root, "mid")).isSymbolicLink()) seen.symlink++;
        else seen.directory++;
        const which = i % 4;
        try {
          if (which === 0) {
            const { content } = await host.readTextFile({ sessionId: "s", path: join(root, "mid", "sub", "f.txt") });
            if (content !== "inside") escapes.push(`read ${i} returned ${JSON.stringify(content)}`);
          } else if (which === 1) {
            await host.writeTextFile({ sessionId: "s", path: join(root, "mid", "sub", "f.txt"), content: "inside" });
          } else if (which === 2) {
            await host.writeTextFile({
              sessionId: "s",
              path: join(root, "mid", "sub", `new-${i}.txt`),
              content: "created",
            });
          } else {
            await host.writeTextFile({
              sessionId: "s",
              path: join(root, "mid", "sub", `dir-${i}`, "deep", "n.txt"),
              content: "created",
            });
          }
          counts.ok++;
        } catch (error) {
          if (!(error instanceof RequestError)) throw error;
          counts.refused++;
        }
      }
      swapperRanThroughout = swapper.exitCode === null && swapper.signalCode === null;
    } finally {
      await stopSwapper(swapper);
    }
    t.diagnostic(
      `${counts.ok} served, ${counts.refused} refused with an error; mid seen ${seen.directory} times as the ` +
        `directory, ${seen.symlink} as the symlink`,
    );
    // The race was real: otherwise zero escapes would prove nothing.
    assert.ok(swapperRanThroughout, "the swapper was still swapping at the end");
    assert.ok(
      seen.directory > 0 && seen.symlink > 0,
      `the swaps were observed (directory ${seen.directory}, symlink ${seen.symlink})`,
    );
    assert.ok(counts.refused > 0, "some requests met a swapped path and were refused");
    assert.deepEqual(escapes, [], "no read returned outside content");
    assert.deepEqual(snapshot(outside), before, "nothing outside was written or created");
    assert.deepEqual(readdirSync(outside, { recursive: true }).sort(), ["sub", join("sub", "f.txt")]);
    assert.ok(counts.ok > 0, "the host still served requests during the race");
  },
);
