/**
 * Path rules: paths on the wire are absolute, and an agent's file and terminal requests stay inside the session's
 * roots (`cwd` and `additionalDirectories`).
 */
import { sessionIdOf, type Side, type WireEvent } from "../events.js";
import { isAbsolutePath, isInsideAny } from "../paths.js";
import { SPEC, type Rule } from "./types.js";

/** Fields that hold a path, by method: what each side sends. */
const PATH_FIELDS: Record<string, { side: Side; fields: readonly string[]; spec: string }> = {
  "fs/read_text_file": { side: "agent", fields: ["path"], spec: `${SPEC}/file-system#reading-files` },
  "fs/write_text_file": { side: "agent", fields: ["path"], spec: `${SPEC}/file-system#writing-files` },
  "terminal/create": { side: "agent", fields: ["cwd"], spec: `${SPEC}/terminals#executing-commands` },
  "session/new": {
    side: "client",
    fields: ["cwd", "additionalDirectories"],
    spec: `${SPEC}/session-setup#working-directory`,
  },
  "session/load": {
    side: "client",
    fields: ["cwd", "additionalDirectories"],
    spec: `${SPEC}/session-setup#working-directory`,
  },
  "session/resume": {
    side: "client",
    fields: ["cwd", "additionalDirectories"],
    spec: `${SPEC}/session-setup#working-directory`,
  },
  "session/list": { side: "client", fields: ["cwd"], spec: `${SPEC}/session-list` },
};

/** Each path of a request: its JSON path and value. */
function pathsOf(event: WireEvent): Array<{ path: string; value: string }> {
  const spec = event.method === undefined ? undefined : PATH_FIELDS[event.method];
  if (!spec || spec.side !== event.from || event.type !== "request") return [];
  const params = (event.params ?? {}) as Record<string, unknown>;
  const out: Array<{ path: string; value: string }> = [];
  for (const field of spec.fields) {
    const value = params[field];
    if (typeof value === "string") out.push({ path: `$.params.${field}`, value });
    else if (Array.isArray(value))
      value.forEach(
        (item, i) => typeof item === "string" && out.push({ path: `$.params.${field}[${i}]`, value: item }),
      );
  }
  return out;
}

/** `path.absolute`: every path in a request is absolute. */
export const absolutePathRule: Rule = {
  id: "path.absolute",
  spec: `${SPEC}/file-system`,
  description: "File paths and working directories on the wire are absolute",
  severity: "error",
  judges: ["agent", "client"],
  versions: [1, 2],
  create(context) {
    return {
      onEvent(event) {
        for (const { path, value } of pathsOf(event)) {
          if (isAbsolutePath(value)) continue;
          context.report({
            side: event.from,
            event,
            path,
            message:
              `The ${event.from} sent the relative path ${JSON.stringify(value)} in ${event.method} (${path}). ` +
              `Paths in ACP MUST be absolute; resolve them against the session's cwd first.`,
          });
        }
      },
    };
  },
};

/** `path.within-roots`: an agent's file and terminal requests stay inside the session's roots. */
export const withinRootsRule: Rule = {
  id: "path.within-roots",
  spec: `${SPEC}/session-setup#working-directory`,
  description:
    "The agent's fs and terminal requests name paths inside the session's roots (cwd, additionalDirectories)",
  severity: "warning",
  judges: ["agent"],
  create(context) {
    return {
      onEvent(event) {
        if (event.from !== "agent") return;
        const sessionId = sessionIdOf(event);
        const roots = sessionId === undefined ? undefined : context.conversation.rootsOf(sessionId);
        if (!roots || roots.length === 0) return;
        for (const { path, value } of pathsOf(event)) {
          if (!isAbsolutePath(value) || isInsideAny(value, roots)) continue;
          context.report({
            side: "agent",
            event,
            path,
            message:
              `The agent asked ${event.method} for ${JSON.stringify(value)}, outside the roots of session ` +
              `${sessionId} (${roots.join(", ")}). The session's root set SHOULD bound the agent's file system ` +
              `and terminal operations.`,
          });
        }
      },
    };
  },
};
