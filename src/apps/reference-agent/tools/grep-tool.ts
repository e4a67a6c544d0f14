/**
 * The grep tool: searches the files under the session's `cwd` on the agent's disk for a regular expression (a
 * pattern that is not a valid one is searched literally). Skips `.git`, `node_modules` and `dist`, files over
 * 1 MiB and binary files; stops at 200 matches. One `search` tool call with the matches as locations.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { textContent } from "../../../agent/toolkit/index.js";
import type { ToolCallLocation } from "../../../protocol/index.js";
import { displayPath, type TurnContext } from "../context.js";
import { clip, type ToolResult } from "./result.js";

const SKIP = new Set([".git", "node_modules", "dist"]);
const MAX_MATCHES = 200;
const MAX_FILE_BYTES = 1024 * 1024;

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  }
}

async function* files(dir: string, signal: AbortSignal): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (signal.aborted) return;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && !SKIP.has(entry.name)) yield* files(full, signal);
    else if (entry.isFile()) yield full;
  }
}

/** Searches for `pattern`; the result lists `path:line: text` lines. */
export async function grepTool(ctx: TurnContext, pattern: string): Promise<ToolResult> {
  const { turn } = ctx;
  const call = turn.toolCall({ title: `Search for ${pattern}`, kind: "search", status: "in_progress", rawInput: { pattern } });
  const regex = compile(pattern);
  const lines: string[] = [];
  const locations: ToolCallLocation[] = [];
  for await (const file of files(turn.session.cwd, turn.signal)) {
    if (lines.length >= MAX_MATCHES) break;
    const info = await stat(file).catch(() => undefined);
    if (info === undefined || info.size > MAX_FILE_BYTES) continue;
    const bytes = await readFile(file).catch(() => undefined);
    if (bytes === undefined || bytes.includes(0)) continue;
    const text = bytes.toString("utf8").split("\n");
    for (let i = 0; i < text.length && lines.length < MAX_MATCHES; i++) {
      if (!regex.test(text[i]!)) continue;
      lines.push(`${displayPath(ctx, file)}:${i + 1}: ${text[i]!.trim()}`);
      locations.push({ path: file, line: i + 1 });
    }
  }
  turn.throwIfCancelled();
  const output = lines.length === 0 ? `no matches for ${pattern}` : lines.join("\n");
  await call.complete({ content: [textContent(clip(output))], locations, rawOutput: { matches: lines.length } });
  return { ok: true, output };
}
