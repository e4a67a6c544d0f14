/**
 * The worker thread of `searchFiles` (grep-search.ts): walks `root` (sorted, skipping the `skip` directories, files
 * over `maxFileBytes` and binary files), tests each line against the pattern (a pattern that is not a valid regular
 * expression is searched literally), and posts the matches, at most `maxMatches`. Synchronous: it owns its thread.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import type { GrepJob, GrepMatch } from "./grep-search.js";

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  }
}

function* files(dir: string, skip: ReadonlySet<string>): Generator<string> {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && !skip.has(entry.name)) yield* files(full, skip);
    else if (entry.isFile()) yield full;
  }
}

function search(job: GrepJob): GrepMatch[] {
  const regex = compile(job.pattern);
  const matches: GrepMatch[] = [];
  for (const file of files(job.root, new Set(job.skip))) {
    if (matches.length >= job.maxMatches) break;
    let bytes: Buffer;
    try {
      if (statSync(file).size > job.maxFileBytes) continue;
      bytes = readFileSync(file);
    } catch {
      continue;
    }
    if (bytes.includes(0)) continue;
    const lines = bytes.toString("utf8").split("\n");
    for (let i = 0; i < lines.length && matches.length < job.maxMatches; i++) {
      if (regex.test(lines[i]!)) matches.push({ path: file, line: i + 1, text: lines[i]!.trim() });
    }
  }
  return matches;
}

if (parentPort !== null && workerData !== undefined) parentPort.postMessage(search(workerData as GrepJob));
