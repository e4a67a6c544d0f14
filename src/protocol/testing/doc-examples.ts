/**
 * JSON examples from the ACP documentation (agentclientprotocol.com, the snapshot in the project brief), copied
 * verbatim: params of each request/notification, results, and bare values. They predate parts of the current schema;
 * `outdated` names the path where an example disagrees with the schema: `current_mode_update.modeId` (the schema now
 * says `currentModeId`), and a permission request whose tool call `content` holds a bare text block where the schema
 * wants a `{ "type": "content", "content": {...} }` wrapper (lenient parse keeps it as an unknown variant).
 */
import { CONTENT_EXAMPLES } from "./doc-examples-content.js";
import { SESSION_EXAMPLES } from "./doc-examples-sessions.js";
import { TOOL_EXAMPLES } from "./doc-examples-tools.js";

export interface DocExample {
  doc: string;
  method?: string;
  def?: string;
  value: unknown;
  outdated?: string;
}

/** Every example, in the order of the documentation's pages. */
export const DOC_EXAMPLES: DocExample[] = [...CONTENT_EXAMPLES, ...SESSION_EXAMPLES, ...TOOL_EXAMPLES];
