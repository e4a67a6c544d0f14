/**
 * Test groups for scripts/test-lane.mjs: small unit test files share one process, so that the lane does not pay a
 * process and a fresh module graph per file (on Node 20 `node --test` runs each file in its own process: about 0.25
 * CPU-s each, a quarter of the unit lane's CPU with 195 files on 2 cores).
 *
 * A group is a generated module, `group-<n>.test.mjs` in a temporary directory, that imports its files in order; their
 * top-level tests register on the group's root and run one after the other, as they would in their own process. A
 * file stays alone when sharing a process could change what it tests: hooks at its top level (they would attach to the
 * group's root, before or after the other files' tests), or process-wide state it changes (environment variables,
 * process listeners, the working directory, mocked timers, the exit code).
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** Source patterns that keep a file in a process of its own (see the file comment). */
const ALONE =
  /^(before|after|beforeEach|afterEach)\(|process\.env\.[A-Za-z_]+ *=[^=]|process\.on\(|process\.chdir|mock\.timers|process\.exit/m;

/** True when `source` (a compiled test file) may share a process with others. */
export function groupable(source) {
  return !ALONE.test(source);
}

/**
 * Writes one module per run of at most `size` consecutive groupable files (the files are sorted by path, so a group
 * holds one folder's tests) into `dir`; returns the lane's entries: each group module, and each file that stays alone,
 * in the order of `files`. `root` resolves the files' relative paths; `sourceOf(file)` reads a file.
 */
export function groupFiles(files, { dir, root, size, sourceOf }) {
  const entries = [];
  let group = [];
  const close = () => {
    if (group.length === 0) return;
    if (group.length === 1) entries.push(group[0]);
    else {
      const path = join(dir, `group-${entries.length + 1}.test.mjs`);
      const imports = group.map((file) => `import ${JSON.stringify(pathToFileURL(resolve(root, file)).href)};`);
      writeFileSync(path, `// ${group.join(", ")}\n${imports.join("\n")}\n`);
      entries.push(path);
    }
    group = [];
  };
  for (const file of files) {
    if (!groupable(sourceOf(file))) {
      close();
      entries.push(file);
      continue;
    }
    group.push(file);
    if (group.length === size) close();
  }
  close();
  return entries;
}
