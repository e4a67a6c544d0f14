/**
 * Line diffs: Myers' O(ND) algorithm over lines, grouped into unified-diff hunks with context. Pure.
 */

/** One line of a diff. */
export interface DiffLine {
  readonly op: " " | "-" | "+";
  readonly text: string;
}

/** A unified-diff hunk: `@@ -oldStart,oldLines +newStart,newLines @@` and its lines. */
export interface Hunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  readonly lines: readonly DiffLine[];
}

/** Splits text into lines; a final newline does not make an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The shortest edit script from `a` to `b` (Myers), as diff lines in order. */
export function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const middle = myers(a.slice(start, endA), b.slice(start, endB));
  return [
    ...a.slice(0, start).map((text) => ({ op: " " as const, text })),
    ...middle,
    ...a.slice(endA).map((text) => ({ op: " " as const, text })),
  ];
}

function myers(a: readonly string[], b: readonly string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) break outer;
    }
  }
  const out: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const prev = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && prev[offset + k - 1]! < prev[offset + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = prev[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      out.push({ op: " ", text: a[--x]! });
      y--;
    }
    if (down) out.push({ op: "+", text: b[--y]! });
    else out.push({ op: "-", text: a[--x]! });
  }
  while (x > 0 && y > 0) {
    out.push({ op: " ", text: a[--x]! });
    y--;
  }
  return out.reverse();
}

/** Groups a diff into hunks with `context` unchanged lines around each change (default 3). No change: no hunks. */
export function hunks(lines: readonly DiffLine[], context = 3): Hunk[] {
  const result: Hunk[] = [];
  const changed = lines.map((line, index) => (line.op === " " ? -1 : index)).filter((index) => index >= 0);
  if (changed.length === 0) return result;
  let i = 0;
  while (i < changed.length) {
    const from = Math.max(0, changed[i]! - context);
    let to = Math.min(lines.length, changed[i]! + context + 1);
    while (i + 1 < changed.length && changed[i + 1]! - context <= to) {
      i++;
      to = Math.min(lines.length, changed[i]! + context + 1);
    }
    i++;
    let oldStart = 1;
    let newStart = 1;
    for (let j = 0; j < from; j++) {
      if (lines[j]!.op !== "+") oldStart++;
      if (lines[j]!.op !== "-") newStart++;
    }
    const body = lines.slice(from, to);
    const oldLines = body.filter((line) => line.op !== "+").length;
    const newLines = body.filter((line) => line.op !== "-").length;
    result.push({
      oldStart: oldLines === 0 ? oldStart - 1 : oldStart,
      oldLines,
      newStart: newLines === 0 ? newStart - 1 : newStart,
      newLines,
      lines: body,
    });
  }
  return result;
}

/** The hunks turning `oldText` (null: a new file) into `newText`. */
export function unifiedHunks(oldText: string | null | undefined, newText: string, context = 3): Hunk[] {
  return hunks(diffLines(splitLines(oldText ?? ""), splitLines(newText)), context);
}

/** A hunk's header line. */
export function hunkHeader(hunk: Hunk): string {
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
}

/** A plain unified diff (as `diff -u` prints, without timestamps). */
export function unifiedDiff(path: string, oldText: string | null | undefined, newText: string, context = 3): string {
  const header = [oldText == null ? "--- /dev/null" : `--- a/${path}`, `+++ b/${path}`];
  const body = unifiedHunks(oldText, newText, context).flatMap((hunk) => [
    hunkHeader(hunk),
    ...hunk.lines.map((line) => line.op + line.text),
  ]);
  return body.length === 0 ? "" : [...header, ...body].join("\n") + "\n";
}
