/** The documents the docs tests read. Does nothing when run. */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../src/protocol/testing/repo.js";

/** The documents a reader of the repository or of the npm pages meets. */
export function documents(): string[] {
  const docs = readdirSync(join(repoRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  return ["README.md", "MIGRATING.md", ...docs, "examples/README.md", "packages/cli/README.md"];
}
