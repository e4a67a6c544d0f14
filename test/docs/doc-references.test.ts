/**
 * What the documentation points at exists, and names the packages we publish: every relative link of README.md,
 * MIGRATING.md, docs/*.md, examples/README.md and packages/cli/README.md reaches a file; every repository path it
 * quotes in backticks (`src/...`, `test/...`, `packages/...`, `scripts/...`, `bench/...`, `examples/...`) exists;
 * and none tells a reader to install or import `acpkit`, an unrelated package on npm (ours are `@acpkit/sdk` and
 * `@acpkit/cli`).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../../src/protocol/testing/repo.js";
import { documents } from "./support.js";

/** The text of a document without its fenced code blocks (links and paths are read from the prose). */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, "");
}

/** Wrong-package references, each with what to write instead. */
const FOREIGN_PACKAGE: Array<[RegExp, string]> = [
  [/npm (?:install|i|add)(?: -g)? acpkit(?![-\w/])/, "npm install @acpkit/sdk (or @acpkit/cli)"],
  [/(?:from|import|require)\s*\(?\s*["']acpkit(?:\/[\w/-]*)?["']/, 'import from "@acpkit/sdk..."'],
  [/`acpkit(?:\/[\w/.-]*)?`/, "`@acpkit/sdk...` (the package) or plain acpkit (the project)"],
  [/npmjs\.com\/package\/acpkit(?![-\w])/, "https://www.npmjs.com/package/@acpkit/sdk"],
  [/node_modules\/acpkit\b/, "node_modules/@acpkit/sdk"],
  [/\bacpkit-(?:cli-)?\d+\.\d+\.\d+\.tgz/, "acpkit-sdk-<version>.tgz / acpkit-cli-<version>.tgz"],
];

test("no document tells a reader to install or import the npm package `acpkit` (not ours)", () => {
  const found: string[] = [];
  for (const doc of documents()) {
    const lines = readFileSync(join(repoRoot, doc), "utf8").split("\n");
    lines.forEach((line, i) => {
      for (const [pattern, instead] of FOREIGN_PACKAGE) {
        const match = pattern.exec(line);
        if (match) found.push(`${doc}:${i + 1}: "${match[0]}" (write ${instead})`);
      }
    });
  }
  assert.deepEqual(found, []);
});

test("every relative link of the documents reaches a file of the repository", () => {
  const broken: string[] = [];
  for (const doc of documents()) {
    const text = prose(readFileSync(join(repoRoot, doc), "utf8"));
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z+.-]*:/i.test(target) || target.startsWith("#")) continue;
      const path = join(repoRoot, dirname(doc), target.split("#")[0]!);
      if (!existsSync(path)) broken.push(`${doc}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

/** Quoted paths that are not this repository's: the official SDK's and the spec's, and a package subpath. */
const ELSEWHERE = new Set([
  "src/examples/agent.ts", // the official SDK's repository (MIGRATING.md)
  "docs/rfds/mcp-over-acp.mdx", // the ACP spec's repository (docs/mcp-over-acp.md)
  "schema/schema.json", // 1.9.0's package subpath @agentclientprotocol/sdk/schema/schema.json (MIGRATING.md)
]);

test("every repository path the documents quote exists", () => {
  const missing: string[] = [];
  const roots = /^(?:src|test|packages|scripts|bench|examples|docs|schema)\//;
  for (const doc of documents()) {
    const text = prose(readFileSync(join(repoRoot, doc), "utf8"));
    for (const match of text.matchAll(/`([^`\s]+)`/g)) {
      const quoted = match[1]!.replace(/[:,.]$/, "");
      if (!roots.test(quoted) || /[*{}<>]|\.\.\./.test(quoted) || ELSEWHERE.has(quoted)) continue;
      // A bare file name with a test's or module's extension, or a folder (ending in /).
      const file = quoted.split(/[:#]/)[0]!;
      if (!existsSync(join(repoRoot, file)) && !existsSync(join(repoRoot, dirname(doc), file)))
        missing.push(`${doc}: ${quoted}`);
    }
  }
  assert.deepEqual(missing, [], `quoted paths that do not exist (relative to ${relative(process.cwd(), repoRoot)})`);
});
