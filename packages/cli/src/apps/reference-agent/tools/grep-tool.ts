/**
 * The grep tool: searches the files under the session's `cwd` on the agent's disk for a regular expression (a
 * pattern that is not a valid one is searched literally). Skips `.git`, `node_modules` and `dist`, files over
 * 1 MiB and binary files; stops at 200 matches. One `search` tool call with the matches as locations.
 *
 * The search runs in a worker thread (see grep-search.ts): a catastrophic pattern never blocks the agent; a cancel
 * stops it at once, and a search longer than the agent's grep time limit is stopped and reported as failed.
 */
import { textContent } from "@acpkit/sdk/agent-toolkit";
import type { ToolCallLocation } from "@acpkit/sdk";
import { displayPath, type TurnContext } from "../context.js";
import { GrepTimeLimitError, searchFiles } from "./grep-search.js";
import { clip, type ToolResult } from "./result.js";

const SKIP = [".git", "node_modules", "dist"];
const MAX_MATCHES = 200;
const MAX_FILE_BYTES = 1024 * 1024;

/** How long a search may run by default before it is stopped. */
export const DEFAULT_GREP_TIME_LIMIT_MS = 10_000;

/** Searches for `pattern`; the result lists `path:line: text` lines. */
export async function grepTool(ctx: TurnContext, pattern: string): Promise<ToolResult> {
  const { turn } = ctx;
  const call = turn.toolCall({
    title: `Search for ${pattern}`,
    kind: "search",
    status: "in_progress",
    rawInput: { pattern },
  });
  let matches;
  try {
    matches = await searchFiles(
      { root: turn.session.cwd, pattern, maxMatches: MAX_MATCHES, maxFileBytes: MAX_FILE_BYTES, skip: SKIP },
      { signal: turn.signal, timeLimitMs: ctx.settings.grepTimeLimitMs ?? DEFAULT_GREP_TIME_LIMIT_MS },
    );
  } catch (error) {
    turn.throwIfCancelled();
    if (!(error instanceof GrepTimeLimitError)) throw error;
    await call.fail(error, { rawOutput: { error: error.message } });
    return { ok: false, output: `Search for ${pattern} stopped: ${error.message}.` };
  }
  turn.throwIfCancelled();
  const lines = matches.map((match) => `${displayPath(ctx, match.path)}:${match.line}: ${match.text}`);
  const locations: ToolCallLocation[] = matches.map((match) => ({ path: match.path, line: match.line }));
  const output = lines.length === 0 ? `no matches for ${pattern}` : lines.join("\n");
  await call.complete({ content: [textContent(clip(output))], locations, rawOutput: { matches: lines.length } });
  return { ok: true, output };
}
