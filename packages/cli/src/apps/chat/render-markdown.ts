/**
 * A small Markdown renderer for the terminal: headings, paragraphs, bullet and numbered lists, block quotes,
 * fenced code, rules, and inline `code`, **strong**, *emphasis* and [links](url). Enough for what agents stream;
 * anything else shows as the text it is. Works on partial input (an unclosed fence renders as code so far).
 */
import type { ChatPainter } from "./paint.js";
import { append, indent, paintSegments, sanitize, wrapSegments, type Segment } from "./text-layout.js";

/** Renders Markdown to lines of at most `width` columns (code lines are not wrapped, only cut by the terminal). */
export function renderMarkdown(markdown: string, width: number, paint: ChatPainter): string[] {
  const out: string[] = [];
  const lines = sanitize(markdown).split("\n");
  let fence: string | undefined;
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) append(out, wrapInline(paragraph.join(" "), width, paint));
    paragraph = [];
  };
  for (const line of lines) {
    const fenceMatch = /^\s*(```+|~~~+)\s*(\S*)/.exec(line);
    if (fence !== undefined) {
      if (fenceMatch && fenceMatch[1]!.startsWith(fence)) fence = undefined;
      else out.push(paint.colour ? paint.cyan(`  ${line}`) : `  ${line}`);
      continue;
    }
    if (fenceMatch) {
      flush();
      fence = fenceMatch[1]!;
      if (!paint.colour || fenceMatch[2]) out.push(paint.dim(`  ${fenceMatch[1]}${fenceMatch[2] ?? ""}`));
      continue;
    }
    if (line.trim() === "") {
      flush();
      if (out.length > 0 && out[out.length - 1] !== "") out.push("");
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      const text = heading[2]!.replace(/\s+#+\s*$/, "");
      append(
        out,
        wrapInline(text, width, paint).map((l) => paint.bold(paint.colour ? l : heading[1] + " " + l)),
      );
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      out.push(paint.dim("─".repeat(Math.min(width, 40))));
      continue;
    }
    const item = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      const depth = Math.min(4, Math.floor(item[1]!.length / 2));
      const task = /^\[([ xX])\]\s+(.*)$/.exec(item[3]!);
      const bullet = /\d/.test(item[2]!) ? `${item[2]} ` : task ? (task[1] === " " ? "[ ] " : "[x] ") : "• ";
      const pad = "  ".repeat(depth);
      const body = wrapInline(task ? task[2]! : item[3]!, width - pad.length - bullet.length, paint);
      append(out, indent(body, pad + bullet, pad + " ".repeat(bullet.length)));
      continue;
    }
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote) {
      flush();
      append(
        out,
        indent(
          wrapInline(quote[1]!, width - 2, paint).map((l) => paint.dim(l)),
          paint.dim("│ "),
        ),
      );
      continue;
    }
    paragraph.push(line.trim());
  }
  flush();
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
}

/** Wraps one paragraph of inline Markdown. */
export function wrapInline(text: string, width: number, paint: ChatPainter): string[] {
  return wrapSegments(parseInline(text, paint), width).map(paintSegments);
}

/** Splits inline Markdown into styled segments (markers removed; kept as text in plain mode for code). */
export function parseInline(text: string, paint: ChatPainter): Segment[] {
  const segments: Segment[] = [];
  const pattern =
    /`([^`]+)`|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|(?<![\w])_([^_\s][^_]*)_(?![\w])|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index! > last) segments.push({ text: text.slice(last, match.index) });
    const [, code, strong1, strong2, em1, em2, linkText, url] = match;
    if (code !== undefined) segments.push(paint.colour ? { text: code, style: paint.cyan } : { text: `\`${code}\`` });
    else if (strong1 !== undefined || strong2 !== undefined)
      segments.push({ text: (strong1 ?? strong2)!, style: paint.bold });
    else if (em1 !== undefined || em2 !== undefined) segments.push({ text: (em1 ?? em2)!, style: paint.italic });
    else if (linkText !== undefined) {
      segments.push({ text: linkText, style: paint.blue });
      if (url !== linkText) segments.push({ text: ` (${url})`, style: paint.dim });
    }
    last = match.index! + match[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last) });
  return segments;
}
