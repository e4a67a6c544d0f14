import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./testing/repo.js";

const schemaDir = join(repoRoot, "schema");

function recordedHashes(): Map<string, string> {
  const source = readFileSync(join(schemaDir, "SOURCE.md"), "utf8");
  const block = source.slice(source.indexOf("## SHA-256"));
  return new Map([...block.matchAll(/^([0-9a-f]{64}) {2}(\S+)$/gm)].map((m) => [m[2]!, m[1]!]));
}

test("every vendored schema file matches the hash recorded in schema/SOURCE.md, and none is unrecorded", () => {
  const recorded = recordedHashes();
  assert.equal(recorded.size, 9, "SOURCE.md lists the nine JSON files");
  const present = ["v1", "v2"].flatMap((dir) =>
    readdirSync(join(schemaDir, dir))
      .filter((f) => f.endsWith(".json"))
      .map((f) => `${dir}/${f}`),
  );
  assert.deepEqual([...present].sort(), [...recorded.keys()].sort());
  for (const [file, hash] of recorded) {
    const actual = createHash("sha256")
      .update(readFileSync(join(schemaDir, file)))
      .digest("hex");
    assert.equal(actual, hash, `${file} differs from the vendored upstream copy: re-vendor it and update SOURCE.md`);
  }
});
