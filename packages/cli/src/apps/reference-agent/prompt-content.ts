/**
 * Describes the non-text parts of a prompt (images, audio, embedded resources, resource links), so the agent can
 * say what it received. The agent advertises `promptCapabilities` image, audio and embeddedContext.
 * @see https://agentclientprotocol.com/protocol/content
 */
import type { ContentBlock } from "@acpkit/sdk";

/** Bytes of base64 data (without decoding it). */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** One line for a content block; undefined for text blocks. */
export function describeBlock(block: ContentBlock): string | undefined {
  switch (block.type) {
    case "text":
      return undefined;
    case "image":
      return `an image (${block.mimeType}, ${base64Bytes(block.data)} bytes${block.uri ? `, from ${block.uri}` : ""})`;
    case "audio":
      return `audio (${block.mimeType}, ${base64Bytes(block.data)} bytes)`;
    case "resource": {
      const resource = block.resource;
      if ("text" in resource) {
        const lines = resource.text === "" ? 0 : resource.text.split("\n").length;
        return (
          `an embedded resource ${resource.uri} (${resource.mimeType ?? "text"}, ` +
          `${lines} line${lines === 1 ? "" : "s"}, ${resource.text.length} characters)`
        );
      }
      return (
        `an embedded resource ${resource.uri} (${resource.mimeType ?? "binary"}, ` +
        `${base64Bytes(resource.blob)} bytes)`
      );
    }
    case "resource_link":
      return `a link to ${block.uri} (${block.name}${block.mimeType ? `, ${block.mimeType}` : ""}${block.size != null ? `, ${block.size} bytes` : ""})`;
    default:
      return `a content block of type ${(block as { type: string }).type}`;
  }
}

/** "You sent: ..." for the prompt's non-text blocks, or undefined when it has none. */
export function describePrompt(blocks: readonly ContentBlock[]): string | undefined {
  const parts = blocks.flatMap((block) => {
    const text = describeBlock(block);
    return text === undefined ? [] : [text];
  });
  if (parts.length === 0) return undefined;
  return `You sent ${parts.length === 1 ? "" : `${parts.length} attachments: `}${parts.join("; ")}.`;
}

/** The text the model sees for a non-text block (embedded text resources are inlined). */
export function blockForModel(block: ContentBlock): string {
  if (block.type === "text") return block.text;
  if (block.type === "resource" && "text" in block.resource)
    return `<resource uri="${block.resource.uri}">\n${block.resource.text}\n</resource>`;
  return `[${describeBlock(block)}]`;
}
