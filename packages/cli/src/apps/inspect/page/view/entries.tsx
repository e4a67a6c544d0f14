/**
 * The entries of a session's transcript as a client shows them: messages (Markdown; a very long one as a
 * virtualized plain text, so a 200,000-chunk answer stays cheap), thoughts folded, tool calls as cards, the plan as
 * a checklist, notices; each turn closed by its outcome.
 */
import type { JSX } from "preact";
import type { MessageEntry, PlanSnapshotEntry, Transcript, TranscriptEntry } from "@acpkit/sdk/client-toolkit";
import type { ConversationFold } from "../model/fold.js";
import { Markdown } from "./markdown.js";
import { ToolCard } from "./tool-card.js";
import { VirtualList } from "./virtual-list.js";

/** Above this many characters a message is shown as virtualized plain text. */
const LONG_MESSAGE = 20_000;

export function Entries({ transcript, fold }: { transcript: Transcript; fold: ConversationFold }): JSX.Element {
  const entries = transcript.entries;
  const turns = transcript.turns;
  const out: JSX.Element[] = [];
  let turn: number | undefined = -1;
  const closeTurn = (index: number | undefined) => {
    if (index === undefined || index < 0) return;
    const t = turns[index];
    if (!t) return;
    out.push(
      <div key={`turn-${index}`} class={`turn-end outcome-${t.outcome ?? "running"}`} data-testid="turn-end">
        {t.state === "running"
          ? t.cancelRequested
            ? "cancelling…"
            : "the agent is working…"
          : `turn ended: ${t.outcome}${t.stopReason && t.outcome !== t.stopReason ? ` (the agent said ${t.stopReason})` : ""}${t.lateUpdates > 0 ? ` · ${t.lateUpdates} late updates` : ""}`}
      </div>,
    );
  };
  for (const entry of entries) {
    if (entry.turn !== turn && !entry.late) {
      closeTurn(turn);
      turn = entry.turn;
    }
    out.push(<Entry key={entry.id} entry={entry} fold={fold} />);
  }
  closeTurn(turn);
  if (turns.length > 0 && turn !== turns.length - 1) closeTurn(turns.length - 1);
  return <div class="entries">{out}</div>;
}

function Entry({ entry, fold }: { entry: TranscriptEntry; fold: ConversationFold }): JSX.Element {
  switch (entry.kind) {
    case "message":
      return <Message entry={entry} />;
    case "tool_call":
      return <ToolCard call={entry.toolCall} fold={fold} />;
    case "plan":
      return <Plan entry={entry} />;
    case "notice":
      return (
        <div class={`notice-entry ${entry.severity}`} role="note">
          <strong>{entry.title}</strong>
          {entry.description ? <span> — {entry.description}</span> : null}
        </div>
      );
    case "compaction":
      return (
        <details class="compaction">
          <summary>context compacted ({entry.status})</summary>
          <Markdown text={entry.text} />
        </details>
      );
  }
}

function Message({ entry }: { entry: MessageEntry }): JSX.Element {
  const others = entry.content.filter((block) => block.type !== "text");
  const body = entry.text.length > LONG_MESSAGE ? <LongText text={entry.text} /> : <Markdown text={entry.text} />;
  if (entry.role === "thought") {
    return (
      <details class="msg thought" data-testid="thought">
        <summary>Thought ({entry.text.length} characters)</summary>
        {body}
      </details>
    );
  }
  return (
    <div class={`msg ${entry.role}`} data-testid={`msg-${entry.role}`}>
      <div class="msg-who">{entry.role === "user" ? "You" : "Agent"}</div>
      {body}
      {others.map((block, i) => (
        <div key={i} class="block">
          {block.type === "resource_link" ? (
            <span>
              📎 <code>{(block as { name?: string; uri: string }).name ?? (block as { uri: string }).uri}</code>
            </span>
          ) : block.type === "resource" ? (
            <span>
              📎 <code>{(block as { resource: { uri: string } }).resource.uri}</code> (embedded)
            </span>
          ) : block.type === "image" ? (
            <img
              alt="image from the conversation"
              src={`data:${(block as { mimeType: string }).mimeType};base64,${(block as { data: string }).data}`}
            />
          ) : (
            <code>{block.type}</code>
          )}
        </div>
      ))}
    </div>
  );
}

/** A very long text: its lines virtualized in a box of its own. */
function LongText({ text }: { text: string }): JSX.Element {
  const lines = splitLinesCached(text);
  return (
    <div class="long-text" data-testid="long-text">
      <div class="muted">
        {text.length.toLocaleString("en")} characters, {lines.length.toLocaleString("en")} lines
      </div>
      <VirtualList
        count={lines.length}
        rowHeight={18}
        label="message text"
        class="long-lines"
        renderRow={(i) => (
          <div key={i} class="long-line" role="option" aria-selected={false}>
            {lines[i]}
          </div>
        )}
      />
    </div>
  );
}

let cachedText = "";
let cachedLines: string[] = [];
/** Splitting is incremental for a growing text (the common case: a message still streaming). */
function splitLinesCached(text: string): string[] {
  if (text === cachedText) return cachedLines;
  if (text.startsWith(cachedText) && cachedLines.length > 0) {
    const last = cachedLines.pop()!;
    const rest = last + text.slice(cachedText.length);
    cachedLines.push(...rest.split("\n"));
  } else {
    cachedLines = text.split("\n");
  }
  cachedText = text;
  return cachedLines;
}

function Plan({ entry }: { entry: PlanSnapshotEntry }): JSX.Element {
  return (
    <section class="plan" aria-label="plan" data-testid="plan">
      <h3>Plan</h3>
      <ul>
        {entry.entries.map((item, i) => (
          <li key={i} class={`plan-${item.status}`}>
            <span aria-hidden="true">
              {item.status === "completed" ? "☑" : item.status === "in_progress" ? "◐" : "☐"}
            </span>{" "}
            <span class="sr-only">{item.status.replace("_", " ")}: </span>
            {item.content}
            {item.priority === "high" ? <span class="badge">high</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
