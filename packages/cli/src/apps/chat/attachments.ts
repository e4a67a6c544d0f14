/**
 * `@path` attachments: a mentioned file becomes an embedded resource (its text inline) when the agent accepts
 * embedded context (`promptCapabilities.embeddedContext`) and the file is small UTF-8 text, else a resource link.
 *
 * See protocol docs: [Content](https://agentclientprotocol.com/protocol/content) — agents MUST support resource
 * links in prompts; embedded resources only when they advertise `embeddedContext`.
 */
import { readFileSync, statSync } from "node:fs";
import { basename, extname, isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ContentBlock } from "@acpkit/sdk";

/** Files larger than this are linked, never embedded. */
export const MAX_EMBED_BYTES = 256 * 1024;

const MIME: Record<string, string> = {
  ".md": "text/markdown",
  ".ts": "text/x-typescript",
  ".js": "text/javascript",
  ".json": "application/json",
  ".py": "text/x-python",
  ".html": "text/html",
  ".css": "text/css",
  ".txt": "text/plain",
};

/** The result of attaching mentions: the blocks to send after the text, and the mentions that were not found. */
export interface Attachments {
  blocks: ContentBlock[];
  missing: string[];
}

/** Turns `@path` mentions (relative to `cwd`) into content blocks; see the module comment for which kind. */
export function attach(mentions: readonly string[], cwd: string, embedded: boolean): Attachments {
  const blocks: ContentBlock[] = [];
  const missing: string[] = [];
  for (const mention of mentions) {
    const path = isAbsolute(mention) ? mention : resolve(cwd, mention);
    let size: number;
    let directory: boolean;
    try {
      const stat = statSync(path);
      size = stat.size;
      directory = stat.isDirectory();
    } catch {
      missing.push(mention);
      continue;
    }
    const uri = pathToFileURL(path).href;
    const mimeType = MIME[extname(path).toLowerCase()];
    const text = embedded && !directory && size <= MAX_EMBED_BYTES ? readText(path) : undefined;
    if (text !== undefined)
      blocks.push({ type: "resource", resource: { uri, text, ...(mimeType ? { mimeType } : {}) } });
    else
      blocks.push({
        type: "resource_link",
        uri,
        name: basename(path) || path,
        ...(directory ? {} : { size }),
        ...(mimeType ? { mimeType } : {}),
      });
  }
  return { blocks, missing };
}

function readText(path: string): string | undefined {
  try {
    const bytes = readFileSync(path);
    if (bytes.includes(0)) return undefined;
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
