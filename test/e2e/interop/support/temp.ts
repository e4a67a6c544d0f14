/** Temporary directories that are removed after the test, and when the process exits, whatever happened. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made = new Set<string>();
process.on("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

export function makeTempDir(prefix = "acp-interop-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

export function removeTempDir(dir: string | undefined): void {
  if (dir === undefined) return;
  rmSync(dir, { recursive: true, force: true });
  made.delete(dir);
}
