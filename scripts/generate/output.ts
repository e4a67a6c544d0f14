/**
 * Writing generated files, or (check mode) comparing them with what is on disk and naming every difference.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Generated files by name (relative to the output directory). */
export type Outputs = Map<string, string>;

/** Writes every output and removes generated-looking files that are no longer produced. Returns changed names. */
export function writeOutputs(dir: string, outputs: Outputs): string[] {
  mkdirSync(dir, { recursive: true });
  const changed: string[] = [];
  for (const [name, content] of outputs) {
    const path = join(dir, name);
    if (existsSync(path) && readFileSync(path, "utf8") === content) continue;
    writeFileSync(path, content);
    changed.push(name);
  }
  for (const name of readdirSync(dir)) {
    if (!outputs.has(name) && name.endsWith(".ts")) {
      unlinkSync(join(dir, name));
      changed.push(`${name} (removed)`);
    }
  }
  return changed;
}

/** Every way the files in `dir` differ from `outputs`; empty when regeneration would change nothing. */
export function checkOutputs(dir: string, outputs: Outputs): string[] {
  const problems: string[] = [];
  for (const [name, content] of outputs) {
    const path = join(dir, name);
    if (!existsSync(path)) {
      problems.push(`${path}: missing (run npm run generate)`);
      continue;
    }
    const actual = readFileSync(path, "utf8");
    if (actual !== content)
      problems.push(`${path}: differs from the generator's output at line ${firstDiffLine(actual, content)}`);
  }
  if (existsSync(dir)) {
    for (const name of readdirSync(dir)) {
      if (!outputs.has(name) && name.endsWith(".ts"))
        problems.push(`${join(dir, name)}: not produced by the generator`);
    }
  }
  return problems;
}

function firstDiffLine(a: string, b: string): number {
  const x = a.split("\n");
  const y = b.split("\n");
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) return i + 1;
  return 1;
}
