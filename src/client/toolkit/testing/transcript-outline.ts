/** Test helper: session updates in brief, and a transcript's entries as a plain-text renderer would show them. */
import type { SessionUpdate, ToolCallContent } from "../../../protocol/index.js";
import { Transcript } from "../transcript.js";

export const text = (value: string) => ({ type: "text" as const, text: value });
export const agent = (value: string, messageId?: string): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  content: text(value),
  ...(messageId ? { messageId } : {}),
});
export const thought = (value: string, messageId?: string): SessionUpdate => ({
  sessionUpdate: "agent_thought_chunk",
  content: text(value),
  ...(messageId ? { messageId } : {}),
});
export const output = (value: string): ToolCallContent => ({ type: "content", content: text(value) });

/** A compact view of the entries: what a plain-text renderer would show. */
export function outline(transcript: Transcript): string[] {
  return transcript.entries.map((entry) => {
    if (entry.kind === "message") return `${entry.role}: ${entry.text}`;
    if (entry.kind === "plan")
      return `plan: ${entry.entries.map((item) => `${item.content}=${item.status}`).join(", ")}`;
    if (entry.kind === "notice") return `notice ${entry.severity}: ${entry.title}`;
    if (entry.kind === "compaction") return `compaction ${entry.compactionId} ${entry.status}: ${entry.text}`;
    const call = entry.toolCall;
    return `tool ${call.toolCallId} [${call.kind}/${call.status}${call.cancelled ? "/cancelled" : ""}] ${call.title}`;
  });
}
