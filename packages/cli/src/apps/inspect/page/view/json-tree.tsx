/**
 * A collapsible JSON tree for a frame: objects and arrays open to `depth`, and along every highlighted JSON path
 * (the rule engine's `$.params.update.content.text`), whose node is marked and scrolled into view. Keyboard: each
 * toggle is a button.
 */
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** `$.a.b[0]["c d"]` → ["a", "b", 0, "c d"]. */
export function parsePath(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  const pattern = /\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\['([^']*)'\]/g;
  for (const match of path.replace(/^\$/, "").matchAll(pattern)) {
    if (match[1] !== undefined) out.push(match[1]);
    else if (match[2] !== undefined) out.push(Number(match[2]));
    else if (match[3] !== undefined) out.push(JSON.parse(match[3]) as string);
    else if (match[4] !== undefined) out.push(match[4]);
  }
  return out;
}

export interface JsonTreeProps {
  value: unknown;
  /** Paths to open and mark. */
  highlight?: readonly string[];
  depth?: number;
}

export function JsonTree({ value, highlight = [], depth = 2 }: JsonTreeProps): JSX.Element {
  const paths = highlight.map(parsePath);
  return (
    <div class="json" role="tree" aria-label="frame as JSON">
      <Node name={undefined} value={value} at={[]} paths={paths} depth={depth} />
    </div>
  );
}

function onPath(at: Array<string | number>, paths: Array<Array<string | number>>): "on" | "end" | undefined {
  let result: "on" | "end" | undefined;
  for (const path of paths) {
    if (at.length > path.length) continue;
    if (at.every((part, i) => part === path[i])) {
      result = at.length === path.length ? "end" : (result ?? "on");
      if (result === "end") return result;
    }
  }
  return result;
}

interface NodeProps {
  name: string | number | undefined;
  value: unknown;
  at: Array<string | number>;
  paths: Array<Array<string | number>>;
  depth: number;
}

function Node({ name, value, at, paths, depth }: NodeProps): JSX.Element {
  const mark = onPath(at, paths);
  const composite = value !== null && typeof value === "object";
  const [open, setOpen] = useState(at.length < depth || mark !== undefined);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (mark === "end") ref.current?.scrollIntoView({ block: "nearest" });
  }, [mark]);
  const label =
    name === undefined ? null : (
      <span class="json-key">{typeof name === "number" ? `[${name}]` : `${JSON.stringify(name)}`}: </span>
    );
  const cls = `json-node${mark === "end" ? " json-mark" : ""}`;
  if (!composite) {
    return (
      <div class={cls} ref={ref} role="treeitem" aria-selected={mark === "end"}>
        {label}
        <span class={`json-${value === null ? "null" : typeof value}`}>{JSON.stringify(value) ?? String(value)}</span>
        {mark === "end" ? <span class="json-flag"> ← here</span> : null}
      </div>
    );
  }
  const entries: Array<[string | number, unknown]> = Array.isArray(value)
    ? value.map((item, i) => [i, item])
    : Object.entries(value as Record<string, unknown>);
  const brackets = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return (
    <div class={cls} ref={ref} role="treeitem" aria-expanded={open} aria-selected={mark === "end"}>
      <button
        type="button"
        class="json-toggle"
        onClick={() => setOpen(!open)}
        aria-label={open ? "collapse" : "expand"}
      >
        {open ? "▾" : "▸"}
      </button>
      {label}
      {open ? (
        <>
          <span class="json-punct">{brackets[0]}</span>
          {mark === "end" ? <span class="json-flag"> ← here</span> : null}
          <div class="json-children" role="group">
            {entries.map(([key, item]) => (
              <Node key={String(key)} name={key} value={item} at={[...at, key]} paths={paths} depth={depth} />
            ))}
          </div>
          <span class="json-punct">{brackets[1]}</span>
        </>
      ) : (
        <span class="json-punct">
          {brackets[0]} {entries.length} {Array.isArray(value) ? "items" : "keys"} {brackets[1]}
        </span>
      )}
    </div>
  );
}
