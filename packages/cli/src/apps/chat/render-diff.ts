/**
 * Renders a tool call's `diff` content as a coloured unified diff (red removals, green additions, cyan hunk
 * headers). Without colour the `-`/`+` markers carry the meaning alone.
 */
import { hunkHeader, unifiedHunks } from "./diff.js";
import type { ChatPainter } from "./paint.js";
import { append, sanitize, truncate } from "./text-layout.js";

/** Options of `renderDiff`. */
export interface RenderDiffOptions {
  /** At most this many lines of hunks (the rest is summarised). Default 60. */
  maxLines?: number;
  /** Unchanged lines around each change. Default 3. */
  context?: number;
}

/** Lines of a diff of `path` from `oldText` (null: a new file) to `newText`, cut to `width` columns. */
export function renderDiff(
  diff: { path: string; oldText?: string | null; newText: string },
  width: number,
  paint: ChatPainter,
  options: RenderDiffOptions = {},
): string[] {
  const oldText = diff.oldText == null ? null : sanitize(diff.oldText);
  const hunks = unifiedHunks(oldText, sanitize(diff.newText), options.context ?? 3);
  const added = hunks.reduce((sum, hunk) => sum + hunk.lines.filter((line) => line.op === "+").length, 0);
  const removed = hunks.reduce((sum, hunk) => sum + hunk.lines.filter((line) => line.op === "-").length, 0);
  const what = oldText === null ? "new file" : hunks.length === 0 ? "no changes" : "";
  const stats = [what, added > 0 ? paint.green(`+${added}`) : "", removed > 0 ? paint.red(`-${removed}`) : ""]
    .filter(Boolean)
    .join(" ");
  const out = [`${paint.bold(truncate(sanitize(diff.path), Math.max(10, width - 20)))} ${stats}`.trimEnd()];
  const max = options.maxLines ?? 60;
  const body: string[] = [];
  for (const hunk of hunks) {
    body.push(paint.cyan(hunkHeader(hunk)));
    for (const line of hunk.lines) {
      const text = truncate(line.op + line.text, width);
      body.push(line.op === "+" ? paint.green(text) : line.op === "-" ? paint.red(text) : paint.dim(text));
    }
  }
  if (body.length > max) {
    out.push(...body.slice(0, max), paint.dim(`… ${body.length - max} more diff lines`));
  } else append(out, body);
  return out;
}
