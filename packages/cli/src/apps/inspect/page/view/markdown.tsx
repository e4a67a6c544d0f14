/**
 * A small Markdown renderer for agent messages: headings, paragraphs, lists, block quotes, fenced code, inline code,
 * emphasis, links (http(s) only, opened in a new tab without the referrer). It builds elements, never HTML text,
 * so nothing an agent writes can inject markup. Unclosed fences (a message still streaming) render as code so far.
 */
import type { ComponentChildren, JSX } from "preact";

export function Markdown({ text }: { text: string }): JSX.Element {
  return <div class="md">{blocks(text)}</div>;
}

function blocks(text: string): JSX.Element[] {
  const lines = text.split("\n");
  const out: JSX.Element[] = [];
  let i = 0;
  let key = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = /^\s*(```|~~~)\s*([\w+-]*)/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!)) body.push(lines[i++]!);
      i++;
      out.push(
        <pre key={key++} class="code" data-lang={fence[2] || undefined}>
          <code>{body.join("\n")}</code>
        </pre>,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, heading[1]!.length + 2);
      const Tag = `h${level}` as "h3";
      out.push(<Tag key={key++}>{inline(heading[2]!)}</Tag>);
      i++;
      continue;
    }
    if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const items: JSX.Element[] = [];
      while (i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i]!)) {
        items.push(<li key={items.length}>{inline(lines[i]!.replace(/^\s*([-*+]|\d+[.)])\s+/, ""))}</li>);
        i++;
      }
      out.push(ordered ? <ol key={key++}>{items}</ol> : <ul key={key++}>{items}</ul>);
      continue;
    }
    if (/^>\s?/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^>\s?/.test(lines[i]!)) quoted.push(lines[i++]!.replace(/^>\s?/, ""));
      out.push(<blockquote key={key++}>{blocks(quoted.join("\n"))}</blockquote>);
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== "" && !/^\s*(```|~~~|#{1,6}\s|>|[-*+]\s|\d+[.)]\s)/.test(lines[i]!))
      paragraph.push(lines[i++]!);
    out.push(<p key={key++}>{joinLines(paragraph)}</p>);
  }
  return out;
}

function joinLines(lines: string[]): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  lines.forEach((line, index) => {
    if (index > 0) out.push(<br key={`br${index}`} />);
    out.push(...inline(line));
  });
  return out;
}

const INLINE =
  /(`+)([^`]+?)\1|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|\[([^\]]+)\]\(([^)\s]+)\)/g;

function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let at = 0;
  let key = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index! > at) out.push(text.slice(at, match.index));
    if (match[2] !== undefined) out.push(<code key={key++}>{match[2]}</code>);
    else if (match[3] !== undefined || match[4] !== undefined)
      out.push(<strong key={key++}>{inline(match[3] ?? match[4]!)}</strong>);
    else if (match[5] !== undefined || match[6] !== undefined) out.push(<em key={key++}>{match[5] ?? match[6]}</em>);
    else if (match[7] !== undefined) {
      const href = match[8]!;
      out.push(
        /^https?:\/\//i.test(href) ? (
          <a key={key++} href={href} target="_blank" rel="noopener noreferrer">
            {match[7]}
          </a>
        ) : (
          `${match[7]} (${href})`
        ),
      );
    }
    at = match.index! + match[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}
