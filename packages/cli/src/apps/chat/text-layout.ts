/**
 * Text layout for the terminal: visible width (escape codes excluded), and word wrapping of styled segments so
 * that colour never splits inside an escape sequence. Pure functions.
 */

import { sanitizeTerminalText } from "@acpkit/sdk/client-toolkit";

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** `text` without ANSI escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/**
 * Text that came from an agent, made safe and laid out for the chat: every terminal control sequence removed by the
 * client toolkit's `sanitizeTerminalText` (the one sanitizer of `acp exec` and `acp chat`), a carriage return made a
 * line break (it cannot overwrite the line), tabs as two spaces.
 */
export function sanitize(text: string): string {
  return sanitizeTerminalText(text.replace(/\r\n?/g, "\n")).replace(/\t/g, "  ");
}

/** How many columns `text` takes (escape codes take none; one column per code point otherwise). */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const _ of stripAnsi(text)) width++;
  return width;
}

/** A run of text with one style (a painter function, or none). */
export interface Segment {
  readonly text: string;
  readonly style?: (text: string) => string;
}

/** Paints a line of segments. */
export function paintSegments(segments: readonly Segment[]): string {
  return segments.map((segment) => (segment.style ? segment.style(segment.text) : segment.text)).join("");
}

/**
 * Word-wraps `segments` to `width` columns (at least 1). Breaks at spaces; a word longer than a line is cut.
 * Spaces at a break are dropped. Returns one array of segments per line (at least one, maybe empty).
 */
export function wrapSegments(segments: readonly Segment[], width: number): Segment[][] {
  const max = Math.max(1, width);
  const lines: Segment[][] = [[]];
  let column = 0;
  const push = (text: string, style: Segment["style"]) => {
    const line = lines[lines.length - 1]!;
    const last = line[line.length - 1];
    if (last !== undefined && last.style === style) line[line.length - 1] = { text: last.text + text, style };
    else line.push(style === undefined ? { text } : { text, style });
    column += [...text].length;
  };
  const newline = () => {
    const line = lines[lines.length - 1]!;
    const last = line[line.length - 1];
    if (last !== undefined) {
      const trimmed = last.text.replace(/ +$/, "");
      if (trimmed === "") line.pop();
      else line[line.length - 1] = { ...last, text: trimmed };
    }
    lines.push([]);
    column = 0;
  };
  for (const segment of segments) {
    for (const token of segment.text.split(/( +)/)) {
      if (token === "") continue;
      const chars = [...token];
      if (token.startsWith(" ")) {
        if (column === 0 && lines.length > 1) continue;
        if (column + chars.length > max) {
          newline();
          continue;
        }
        push(token, segment.style);
        continue;
      }
      if (column > 0 && column + chars.length > max) newline();
      // A word longer than the line is cut into line-sized pieces; an offset, not repeated slicing, keeps it linear.
      let at = 0;
      while (chars.length - at > max - column) {
        const take = max - column;
        push(chars.slice(at, at + take).join(""), segment.style);
        at += take;
        newline();
      }
      if (at < chars.length) push(chars.slice(at).join(""), segment.style);
    }
  }
  return lines;
}

/** Wraps plain text (which may hold newlines) to `width`, each line painted with `style`. */
export function wrapText(text: string, width: number, style?: (text: string) => string): string[] {
  return text
    .split("\n")
    .flatMap((line) => wrapSegments([style ? { text: line, style } : { text: line }], width).map(paintSegments));
}

/** Prefixes every line: `first` on the first one, `rest` on the others (hanging indent). */
export function indent(lines: readonly string[], first: string, rest: string = first): string[] {
  return lines.map((line, index) => (index === 0 ? first : rest) + line);
}

/** Cuts a plain line to `width` columns, ending with an ellipsis when cut. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? chars.slice(0, width).join("") : `${chars.slice(0, width - 1).join("")}…`;
}

/** Appends `lines` to `out` one by one: `out.push(...lines)` overflows the call stack past ~100,000 lines. */
export function append<T>(out: T[], lines: readonly T[]): T[] {
  for (const line of lines) out.push(line);
  return out;
}
