/**
 * Renders one transcript entry (a message, a thought, a tool call, a plan), a turn's end and the usage line to
 * lines of text, given a width and a painter. Pure: the chat UI decides where and when the lines go.
 */
import type { ContentBlock } from "@acpkit/sdk";
import type { TranscriptEntry, Turn, Usage } from "@acpkit/sdk/client-toolkit";
import type { ChatPainter } from "./paint.js";
import { renderMarkdown } from "./render-markdown.js";
import { renderPlan } from "./render-plan.js";
import { renderToolCall, type RenderToolOptions } from "./render-tool.js";
import { indent, sanitize, truncate, wrapText } from "./text-layout.js";

/** Options of `renderEntry`. */
export interface RenderEntryOptions extends RenderToolOptions {
  /** Show thoughts whole (true) or collapsed to a one-line summary (false, default). */
  expandThoughts?: boolean;
  /** The entry may still change (it is streaming): a collapsed thought then shows its latest line. */
  live?: boolean;
}

/** Lines of one entry. */
export function renderEntry(
  entry: TranscriptEntry,
  width: number,
  paint: ChatPainter,
  options: RenderEntryOptions = {},
): string[] {
  switch (entry.kind) {
    case "plan":
      return renderPlan(entry.entries, width, paint);
    case "tool_call":
      return renderToolCall(entry.toolCall, width, paint, options);
    case "message":
      if (entry.role === "user") return renderUser(entry.content, width, paint);
      if (entry.role === "thought") return renderThought(entry.text, width, paint, options);
      return [...renderMarkdown(entry.text, width, paint), ...attachments(entry.content, width, paint)];
    case "notice":
      return renderNotice(entry, width, paint);
    case "compaction":
      return renderCompaction(entry, width, paint);
  }
}

/** A notice: `!` and its title, coloured by severity, then its description dimmed. */
export function renderNotice(entry: TranscriptEntry & { kind: "notice" }, width: number, paint: ChatPainter): string[] {
  const colour = entry.severity === "error" ? paint.red : entry.severity === "warning" ? paint.yellow : paint.blue;
  const marker = paint.colour ? "! " : `! [${sanitize(entry.severity)}] `;
  const lines = indent(
    wrapText(sanitize(entry.title), width - 2, colour),
    colour(marker.slice(0, 2)) + marker.slice(2),
    "  ",
  );
  if (entry.description !== undefined)
    lines.push(...indent(wrapText(sanitize(entry.description), width - 2, paint.dim), "  ", "  "));
  return lines;
}

/** A context compaction: its status on one line, then the summary (once there is one) or the error, dimmed. */
export function renderCompaction(
  entry: TranscriptEntry & { kind: "compaction" },
  width: number,
  paint: ChatPainter,
): string[] {
  const status =
    entry.status === "in_progress" ? "compacting the context…" : `context compaction ${sanitize(entry.status)}`;
  const lines = [paint.dim(`⟲ ${status}`)];
  const detail = entry.error ?? entry.text;
  if (detail !== "")
    lines.push(
      ...indent(wrapText(sanitize(detail), width - 2, entry.error !== undefined ? paint.red : paint.dim), "  ", "  "),
    );
  return lines;
}

/** The user's prompt: `›` and the text in bold, then any attachments. */
export function renderUser(content: readonly ContentBlock[], width: number, paint: ChatPainter): string[] {
  const text = content
    .filter((block) => block.type === "text")
    .map((block) => (block as { text: string }).text)
    .join("");
  return [
    ...indent(wrapText(sanitize(text), width - 2, paint.bold), paint.cyan("› "), "  "),
    ...attachments(content, width, paint),
  ];
}

function attachments(content: readonly ContentBlock[], width: number, paint: ChatPainter): string[] {
  const out: string[] = [];
  for (const block of content) {
    if (block.type === "resource") out.push(paint.dim(truncate(`  + ${block.resource.uri} (embedded)`, width)));
    else if (block.type === "resource_link") out.push(paint.dim(truncate(`  + ${block.uri} (link)`, width)));
    else if (block.type === "image" || block.type === "audio") out.push(paint.dim(`  + [${block.type}]`));
  }
  return out;
}

/** A thought: dimmed; collapsed to one summary line unless `expandThoughts`. */
export function renderThought(
  text: string,
  width: number,
  paint: ChatPainter,
  options: RenderEntryOptions = {},
): string[] {
  const clean = sanitize(text).trim();
  const lines = clean.split("\n").filter((line) => line.trim() !== "");
  if (options.expandThoughts) return indent(wrapText(clean, width - 2, paint.dim), paint.dim("┊ "));
  const shown = options.live ? (lines[lines.length - 1] ?? "") : (lines[0] ?? "");
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines, :thoughts to expand)` : "";
  return [paint.dim(paint.italic(truncate(`┊ thinking: ${shown}`, Math.max(10, width - more.length)) + more))];
}

/** The line that closes a turn: how it ended. Nothing for a plain `end_turn`. */
export function renderTurnEnd(turn: Turn, paint: ChatPainter): string[] {
  switch (turn.outcome) {
    case undefined:
    case "end_turn":
      return [];
    case "cancelled":
      return [paint.yellow("⊘ cancelled")];
    case "error":
      return [paint.red(`✗ error: ${errorText(turn.error)}`)];
    default:
      return [paint.yellow(`■ stopped: ${sanitize(turn.outcome).replace(/_/g, " ")}`)];
  }
}

/** The usage line: context used of its size (and a percentage), and the cost when given. */
export function renderUsage(usage: Usage | undefined, paint: ChatPainter): string {
  if (usage === undefined) return "";
  const percent =
    usage.size > 0 ? ` (${((100 * usage.used) / usage.size).toFixed(usage.used * 1000 < usage.size ? 2 : 1)}%)` : "";
  const cost = usage.cost ? ` · ${formatCost(usage.cost.amount, usage.cost.currency)}` : "";
  return paint.dim(
    `context ${usage.used.toLocaleString("en-US")} / ${usage.size.toLocaleString("en-US")} tokens${percent}${cost}`,
  );
}

function formatCost(amount: number, currency: string): string {
  return currency === "USD" ? `$${amount.toFixed(amount < 1 ? 4 : 2)}` : `${amount.toFixed(2)} ${sanitize(currency)}`;
}

/** A readable one-line message of an error. */
export function errorText(error: unknown): string {
  return errorLines(error)[0] ?? "";
}

/** Every line of an error's message (one that quotes the agent's stderr, say), made safe. */
export function errorLines(error: unknown): string[] {
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error);
  return sanitize(String(message)).replace(/\n+$/, "").split("\n");
}
