/**
 * Renders a tool call as a card: a header with an icon for its status, its kind and title, then its locations,
 * its content (text, diffs, embedded terminals with live output) behind a `│` gutter.
 */
import type { ToolCallContent, ToolCallStatus } from "@acpkit/sdk";
import type { ToolCallState } from "@acpkit/sdk/client-toolkit";
import type { ChatPainter } from "./paint.js";
import { renderDiff } from "./render-diff.js";
import { renderMarkdown } from "./render-markdown.js";
import { append, indent, sanitize, truncate, wrapText } from "./text-layout.js";

/** What a terminal embedded in a tool call shows: its output so far and, once it ended, how. */
export interface TerminalView {
  readonly output: string;
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly exited: boolean;
}

/** Options of `renderToolCall`. */
export interface RenderToolOptions {
  /** The live output of a terminal by id (from the client's terminal host). */
  terminal?: (terminalId: string) => TerminalView | undefined;
  /** At most this many lines of terminal output (the last ones). Default 12. */
  terminalLines?: number;
  /** At most this many lines of text content per block. Default 20. */
  textLines?: number;
  /** Collapse the body to the header (a finished card scrolled into history). Default false. */
  collapsed?: boolean;
}

const ICONS: Record<ToolCallStatus | "cancelled", string> = {
  pending: "○",
  in_progress: "◐",
  completed: "✓",
  failed: "✗",
  cancelled: "⊘",
};

/** The status label and its colour. */
export function statusLabel(call: Pick<ToolCallState, "status" | "cancelled">, paint: ChatPainter): string {
  const status = call.cancelled ? "cancelled" : call.status;
  const text = `${ICONS[status]} ${status.replace("_", " ")}`;
  if (status === "completed") return paint.green(text);
  if (status === "failed") return paint.red(text);
  if (status === "in_progress") return paint.yellow(text);
  return paint.dim(text);
}

/** Lines of a tool call card, `width` columns wide. */
export function renderToolCall(
  call: ToolCallState,
  width: number,
  paint: ChatPainter,
  options: RenderToolOptions = {},
): string[] {
  const title = sanitize(call.title || call.toolCallId);
  const kind = sanitize(call.kind);
  const head = `${paint.magenta(`[${kind}]`)} ${paint.bold(truncate(title, Math.max(10, width - kind.length - 18)))} ${statusLabel(call, paint)}`;
  const out = [`${paint.dim("┌")} ${head}`];
  if (options.collapsed) return out;
  const inner = Math.max(10, width - 2);
  const body: string[] = [];
  for (const location of call.locations) {
    body.push(
      paint.dim(truncate(sanitize(`${location.path}${location.line != null ? `:${location.line}` : ""}`), inner)),
    );
  }
  for (const content of call.content) append(body, renderContent(content, inner, paint, options));
  return [...out, ...indent(body, paint.dim("│ "))];
}

function renderContent(
  content: ToolCallContent,
  width: number,
  paint: ChatPainter,
  options: RenderToolOptions,
): string[] {
  switch (content.type) {
    case "diff":
      return renderDiff(content, width, paint);
    case "terminal": {
      const view = options.terminal?.(content.terminalId);
      if (view === undefined) return [paint.dim(`terminal ${sanitize(content.terminalId)}`)];
      const max = options.terminalLines ?? 12;
      const lines = sanitize(view.output).replace(/\n$/, "").split("\n");
      const shown = view.output === "" ? [] : lines.slice(-max);
      const out = lines.length > max ? [paint.dim(`… ${lines.length - max} earlier lines`)] : [];
      append(
        out,
        shown.map((line) => truncate(line, width)),
      );
      if (view.exited) {
        const how = view.signal ? `killed by ${view.signal}` : `exit ${view.exitCode ?? "?"}`;
        out.push(view.exitCode === 0 ? paint.green(`$ ${how}`) : paint.red(`$ ${how}`));
      } else out.push(paint.dim("$ running…"));
      return out;
    }
    case "content": {
      const block = content.content;
      const max = options.textLines ?? 20;
      let lines: string[];
      if (block.type === "text") lines = renderMarkdown(block.text, width, paint);
      else if (block.type === "resource_link")
        lines = wrapText(sanitize(`${block.name} <${block.uri}>`), width, paint.blue);
      else if (block.type === "resource") lines = wrapText(sanitize(block.resource.uri), width, paint.blue);
      else lines = [paint.dim(`[${sanitize(block.type)}]`)];
      return lines.length > max ? [...lines.slice(0, max), paint.dim(`… ${lines.length - max} more lines`)] : lines;
    }
    default:
      return [paint.dim(`[${sanitize(String((content as { type: unknown }).type))}]`)];
  }
}
