/**
 * A tool call as a card: title, kind, status (and "cancelled" when the client cancelled it unfinished), locations,
 * and its content: text, diffs (unified or side by side), and terminals with their live output.
 */
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import type { ToolCallState } from "@acpkit/sdk/client-toolkit";
import type { ConversationFold } from "../model/fold.js";
import { lineDiff, type DiffLine } from "./line-diff.js";
import { sanitizeTerminalText } from "@acpkit/sdk/client-toolkit";
import { Markdown } from "./markdown.js";

const KIND_ICON: Record<string, string> = {
  read: "📖",
  edit: "✏️",
  delete: "🗑",
  move: "📦",
  search: "🔍",
  execute: "▶",
  think: "💭",
  fetch: "🌐",
  switch_mode: "⇄",
  other: "•",
};

export function ToolCard({ call, fold }: { call: ToolCallState; fold: ConversationFold }): JSX.Element {
  const status = call.cancelled ? "cancelled" : call.status;
  return (
    <article
      class={`tool status-${status}`}
      aria-label={`tool call: ${call.title || call.toolCallId}`}
      data-testid="tool-card"
    >
      <header>
        <span class="tool-kind" title={call.kind}>
          <span aria-hidden="true">{KIND_ICON[call.kind] ?? "•"}</span> {call.kind}
        </span>
        <span class="tool-title">{call.title || call.toolCallId}</span>
        <span class={`badge st-${status}`}>{status.replace("_", " ")}</span>
      </header>
      {call.locations.length > 0 ? (
        <ul class="locations" aria-label="locations">
          {call.locations.map((location, i) => (
            <li key={i}>
              <code>
                {location.path}
                {location.line != null ? `:${location.line}` : ""}
              </code>
            </li>
          ))}
        </ul>
      ) : null}
      {call.content.map((content, i) => {
        if (content.type === "diff")
          return <DiffView key={i} path={content.path} oldText={content.oldText} newText={content.newText} />;
        if (content.type === "terminal") return <TerminalView key={i} terminalId={content.terminalId} fold={fold} />;
        if (content.type === "content" && content.content.type === "text")
          return <Markdown key={i} text={content.content.text} />;
        return (
          <pre key={i} class="raw">
            {JSON.stringify(content, null, 2)}
          </pre>
        );
      })}
    </article>
  );
}

export function DiffView({
  path,
  oldText,
  newText,
}: {
  path: string;
  oldText?: string | null;
  newText: string;
}): JSX.Element {
  const [mode, setMode] = useState<"unified" | "split">("unified");
  const lines = lineDiff(oldText, newText);
  const added = lines.filter((line) => line.kind === "added").length;
  const removed = lines.filter((line) => line.kind === "removed").length;
  return (
    <figure class="diff" data-testid="diff">
      <figcaption>
        <code>{path}</code>
        <span class="diff-stat">
          <span class="add">+{added}</span> <span class="del">−{removed}</span>
          {oldText == null ? " (new file)" : ""}
        </span>
        <span class="seg" role="group" aria-label="diff layout">
          <button type="button" aria-pressed={mode === "unified"} onClick={() => setMode("unified")}>
            Unified
          </button>
          <button type="button" aria-pressed={mode === "split"} onClick={() => setMode("split")}>
            Side by side
          </button>
        </span>
      </figcaption>
      {mode === "unified" ? <Unified lines={lines} /> : <Split lines={lines} />}
    </figure>
  );
}

function Unified({ lines }: { lines: DiffLine[] }): JSX.Element {
  return (
    <table class="diff-table">
      <tbody>
        {lines.map((line, i) => (
          <tr key={i} class={line.kind}>
            <td class="no">{line.kind !== "added" ? line.oldNo : ""}</td>
            <td class="no">{line.kind !== "removed" ? line.newNo : ""}</td>
            <td class="sign">{line.kind === "added" ? "+" : line.kind === "removed" ? "−" : " "}</td>
            <td class="text">{line.text}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Split({ lines }: { lines: DiffLine[] }): JSX.Element {
  const rows: Array<[DiffLine | undefined, DiffLine | undefined]> = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.kind === "same") {
      rows.push([line, line]);
      i++;
      continue;
    }
    // A run of changes: its removed lines on the left, its added lines on the right, side by side.
    const removed: DiffLine[] = [];
    const added: DiffLine[] = [];
    while (i < lines.length && lines[i]!.kind !== "same") {
      const changed = lines[i++]!;
      (changed.kind === "removed" ? removed : added).push(changed);
    }
    for (let k = 0; k < Math.max(removed.length, added.length); k++) rows.push([removed[k], added[k]]);
  }
  const cell = (line: DiffLine | undefined, side: "old" | "new") =>
    line === undefined ? (
      <>
        <td class="no" />
        <td class="text empty" />
      </>
    ) : (
      <>
        <td class="no">{side === "old" ? (line as { oldNo: number }).oldNo : (line as { newNo: number }).newNo}</td>
        <td class={`text ${line.kind}`}>{line.text}</td>
      </>
    );
  return (
    <table class="diff-table split">
      <tbody>
        {rows.map(([left, right], k) => (
          <tr key={k}>
            {cell(left, "old")}
            {cell(right, "new")}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function TerminalView({ terminalId, fold }: { terminalId: string; fold: ConversationFold }): JSX.Element {
  const terminal = fold.terminals.get(terminalId);
  const exit = terminal?.exitStatus as { exitCode?: number | null; signal?: string | null } | undefined;
  return (
    <figure class="terminal" data-testid="terminal">
      <figcaption>
        <span aria-hidden="true">▶</span> <code>{terminal?.command || terminalId}</code>
        <span class="term-state">
          {exit ? (exit.signal ? `killed (${exit.signal})` : `exit ${exit.exitCode ?? "?"}`) : "running…"}
        </span>
      </figcaption>
      <pre class="term-out" aria-live="polite">
        {sanitizeTerminalText(terminal?.output ?? "")}
      </pre>
    </figure>
  );
}
