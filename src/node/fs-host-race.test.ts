/**
 * The swap race: a hostile process exchanges a directory in the middle of the path with a symlink to outside the
 * root (atomically, `renameat2(RENAME_EXCHANGE)`), over and over, while the host reads, overwrites and creates files
 * below it. The host may answer errors; it must never read, write or create anything outside.
 * ACPKIT_RACE_ATTEMPTS sets the number of attempts (default 10,000).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { RequestError } from "../jsonrpc/request-error.js";
import { FileSystemHost } from "./fs-host.js";
import { startSwapper, stopSwapper } from "./testing/rename-exchange.js";

const ATTEMPTS = Number(process.env.ACPKIT_RACE_ATTEMPTS ?? 10_000);
const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-race-")));
after(() => rmSync(base, { recursive: true, force: true }));

/** Lists every file under `dir` with its content. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) files[join(entry.parentPath, entry.name).slice(dir.length)] = readFileSync(join(entry.parentPath, entry.name), "utf8");
  }
  return files;
}

test(`a directory swapped for a symlink to outside mid-path: ${ATTEMPTS} reads, writes and creations, zero escapes`, async (t) => {
  const root = join(base, "root");
  const outside = join(base, "outside");
  mkdirSync(join(root, "mid", "sub"), { recursive: true });
  mkdirSync(join(outside, "sub"), { recursive: true });
  writeFileSync(join(root, "mid", "sub", "f.txt"), "inside");
  writeFileSync(join(outside, "sub", "f.txt"), "SECRET");
  symlinkSync(outside, join(root, "swap"));
  const before = snapshot(outside);

  const swapper = await startSwapper(join(root, "mid"), join(root, "swap"));
  if (swapper === undefined) return t.skip("renameat2(RENAME_EXCHANGE) is not available here (needs Linux, and cc or python3)");
  const host = new FileSystemHost({ roots: () => [root] });
  const counts = { ok: 0, refused: 0 };
  const escapes: string[] = [];
  try {
    for (let i = 0; i < ATTEMPTS; i++) {
      const which = i % 4;
      try {
        if (which === 0) {
          const { content } = await host.readTextFile({ sessionId: "s", path: join(root, "mid", "sub", "f.txt") });
          if (content !== "inside") escapes.push(`read ${i} returned ${JSON.stringify(content)}`);
        } else if (which === 1) {
          await host.writeTextFile({ sessionId: "s", path: join(root, "mid", "sub", "f.txt"), content: "inside" });
        } else if (which === 2) {
          await host.writeTextFile({ sessionId: "s", path: join(root, "mid", "sub", `new-${i}.txt`), content: "created" });
        } else {
          await host.writeTextFile({ sessionId: "s", path: join(root, "mid", "sub", `dir-${i}`, "deep", "n.txt"), content: "created" });
        }
        counts.ok++;
      } catch (error) {
        if (!(error instanceof RequestError)) throw error;
        counts.refused++;
      }
    }
  } finally {
    await stopSwapper(swapper);
  }
  t.diagnostic(`${counts.ok} served, ${counts.refused} refused with an error`);
  assert.deepEqual(escapes, [], "no read returned outside content");
  assert.deepEqual(snapshot(outside), before, "nothing outside was written or created");
  assert.deepEqual(readdirSync(outside, { recursive: true }).sort(), ["sub", join("sub", "f.txt")]);
  assert.ok(counts.ok > 0, "the host still served requests during the race");
});
