/**
 * A line diff for the diff cards (`{ type: "diff", oldText, newText }`): the longest common subsequence of lines,
 * computed on the part that differs (common head and tail cut first), with a size bound past which the middle is
 * shown as removed-then-added (a diff of a huge file stays fast).
 */
export type DiffLine =
  | { kind: "same"; text: string; oldNo: number; newNo: number }
  | { kind: "removed"; text: string; oldNo: number }
  | { kind: "added"; text: string; newNo: number };

const MAX_CELLS = 4_000_000;

export function lineDiff(oldText: string | null | undefined, newText: string): DiffLine[] {
  const a = oldText == null || oldText === "" ? [] : oldText.replace(/\n$/, "").split("\n");
  const b = newText === "" ? [] : newText.replace(/\n$/, "").split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: DiffLine[] = [];
  for (let i = 0; i < head; i++) out.push({ kind: "same", text: a[i]!, oldNo: i + 1, newNo: i + 1 });
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  if (midA.length * midB.length > MAX_CELLS) {
    midA.forEach((text, i) => out.push({ kind: "removed", text, oldNo: head + i + 1 }));
    midB.forEach((text, i) => out.push({ kind: "added", text, newNo: head + i + 1 }));
  } else {
    const n = midA.length;
    const m = midB.length;
    const lcs = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lcs[i * (m + 1) + j] =
          midA[i] === midB[j]
            ? lcs[(i + 1) * (m + 1) + j + 1]! + 1
            : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        out.push({ kind: "same", text: midA[i]!, oldNo: head + i + 1, newNo: head + j + 1 });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[(i + 1) * (m + 1) + j]! >= lcs[i * (m + 1) + j + 1]!)) {
        // Removals before additions: a changed line reads as "old, then new".
        out.push({ kind: "removed", text: midA[i]!, oldNo: head + i + 1 });
        i++;
      } else {
        out.push({ kind: "added", text: midB[j]!, newNo: head + j + 1 });
        j++;
      }
    }
  }
  for (let k = 0; k < tail; k++) {
    const oldNo = a.length - tail + k + 1;
    const newNo = b.length - tail + k + 1;
    out.push({ kind: "same", text: a[oldNo - 1]!, oldNo, newNo });
  }
  return out;
}
