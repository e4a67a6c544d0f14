import assert from "node:assert/strict";
import { test } from "node:test";
import { diffLines, hunks, splitLines, unifiedDiff, unifiedHunks, type Hunk } from "./diff.js";

function lcs(a: string[], b: string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(row[j]!, row[j - 1]!);
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** Applies hunks to `old`, as patch would. */
function apply(old: string[], patches: Hunk[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const hunk of patches) {
    const start = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    out.push(...old.slice(at, start));
    at = start;
    for (const line of hunk.lines) {
      if (line.op !== "+") assert.equal(old[at++], line.text, "context and removals match the old text");
      if (line.op !== "-") out.push(line.text);
    }
  }
  return [...out, ...old.slice(at)];
}

test("diffLines is a shortest edit script: it keeps a longest common subsequence (random inputs)", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 300; round++) {
    const a = Array.from({ length: Math.floor(random() * 12) }, () => "abcd"[Math.floor(random() * 4)]!);
    const b = Array.from({ length: Math.floor(random() * 12) }, () => "abcd"[Math.floor(random() * 4)]!);
    const script = diffLines(a, b);
    assert.deepEqual(
      script.filter((l) => l.op !== "+").map((l) => l.text),
      a,
    );
    assert.deepEqual(
      script.filter((l) => l.op !== "-").map((l) => l.text),
      b,
    );
    assert.equal(script.filter((l) => l.op === " ").length, lcs(a, b), `${a.join("")} -> ${b.join("")}`);
    for (const context of [0, 1, 3]) assert.deepEqual(apply(a, hunks(script, context)), b);
  }
});

test("unifiedDiff prints what diff -u prints (without timestamps)", () => {
  const old = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";
  const now = "one\n2\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\n";
  assert.equal(
    unifiedDiff("n.txt", old, now),
    [
      "--- a/n.txt",
      "+++ b/n.txt",
      "@@ -1,5 +1,5 @@",
      " one",
      "-two",
      "+2",
      " three",
      " four",
      " five",
      "@@ -8,3 +8,4 @@",
      " eight",
      " nine",
      " ten",
      "+eleven",
      "",
    ].join("\n"),
  );
  assert.equal(unifiedDiff("n.txt", old, old), "");
});

test("a new file is one hunk from 0,0; a deleted file's hunk ends at 0,0; splitLines ignores the final newline", () => {
  assert.deepEqual(
    unifiedHunks(null, "a\nb\n").map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines]),
    [[0, 0, 1, 2]],
  );
  assert.deepEqual(
    unifiedHunks("a\nb", "").map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines]),
    [[1, 2, 0, 0]],
  );
  assert.deepEqual(splitLines("a\r\nb\n"), ["a", "b"]);
  assert.deepEqual(splitLines(""), []);
});

test("a large file with one change diffs quickly", () => {
  const old = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
  const now = [...old];
  now[10_000] = "changed";
  const started = performance.now();
  const result = unifiedHunks(old.join("\n"), now.join("\n"));
  assert.equal(result.length, 1);
  assert.ok(performance.now() - started < 500);
});
