/**
 * `--only` / `--skip` (scenario ids, comma-separated, `*` as a wildcard: `cancel.*`) and `--expected-failures FILE`
 * (one `id reason...` per line; `#` starts a comment).
 */
import { readFileSync } from "node:fs";

/**
 * Does `id` match one of the patterns? A pattern without `*` also matches the ids under it (`session` matches
 * `session.load`).
 */
export function matchesAny(id: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => {
    if (!pattern.includes("*")) return id === pattern || id.startsWith(`${pattern}.`);
    const regex = new RegExp(
      `^${pattern
        .split("*")
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
    );
    return regex.test(id);
  });
}

/** Patterns of `--only`/`--skip` that match no scenario: a typo the user should hear about. */
export function unknownPatterns(patterns: readonly string[], ids: readonly string[]): string[] {
  return patterns.filter((pattern) => !ids.some((id) => matchesAny(id, [pattern])));
}

/** Reads an expected-failures file: id -> reason. Throws with the line at fault. */
export function readExpectedFailures(path: string, ids: readonly string[]): Map<string, string> {
  const text = readFileSync(path, "utf8");
  const expected = new Map<string, string>();
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") return;
    const match = /^(\S+)\s+(.+)$/.exec(line);
    if (!match)
      throw new Error(`${path}:${i + 1}: expected "<scenario id> <reason>", got "${line}" (a reason is required)`);
    if (!ids.includes(match[1]!))
      throw new Error(`${path}:${i + 1}: unknown scenario id "${match[1]}" (known: ${ids.join(", ")})`);
    expected.set(match[1]!, match[2]!);
  });
  return expected;
}
