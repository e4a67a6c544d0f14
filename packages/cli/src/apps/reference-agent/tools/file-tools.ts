/**
 * The file tools: read, write and edit. Each is one tool call the client sees (`kind` read / edit, the file as a
 * location, edits with a `diff` content item); writes and edits pass the mode gate first. Paths may be relative to
 * the session's `cwd`; what goes on the wire is absolute.
 * @see https://agentclientprotocol.com/protocol/tool-calls
 */
import { diffContent, isAbortError, textContent } from "@acpkit/sdk/agent-toolkit";
import { displayPath, resolvePath, type TurnContext } from "../context.js";
import { readText, readTextOrNull, readTextOrWhy, writeText } from "./client-io.js";
import { gateChange } from "./gate.js";
import { clip, errorText, type ToolResult } from "./result.js";

/** Reads a file; the tool call shows a preview of it. */
export async function readTool(ctx: TurnContext, target: string): Promise<ToolResult> {
  const file = resolvePath(ctx, target);
  const call = ctx.turn.toolCall({
    title: `Read ${displayPath(ctx, file)}`,
    kind: "read",
    status: "in_progress",
    locations: [{ path: file }],
    rawInput: { path: file },
  });
  try {
    const text = await readText(ctx, file);
    await call.complete({ content: [textContent(clip(text))], rawOutput: { bytes: text.length } });
    return { ok: true, output: text };
  } catch (error) {
    if (isAbortError(error) || ctx.turn.signal.aborted) throw error;
    await call.fail(`could not read ${file}: ${errorText(error)}`);
    return { ok: false, output: `could not read ${file}: ${errorText(error)}` };
  }
}

/** Replaces a file's content (or creates it), showing the change as a diff. */
export async function writeTool(ctx: TurnContext, target: string, content: string): Promise<ToolResult> {
  const file = resolvePath(ctx, target);
  const old = await readTextOrNull(ctx, file);
  return applyChange(ctx, file, old, content, `${old === null ? "Create" : "Write"} ${displayPath(ctx, file)}`);
}

/**
 * Edits a file: replaces the first occurrence of `find` with `replace`; without `find`, appends a line (a
 * deterministic edit for demos). Fails when the file cannot be read or `find` does not occur.
 */
export async function editTool(ctx: TurnContext, target: string, find?: string, replace = ""): Promise<ToolResult> {
  const file = resolvePath(ctx, target);
  const read = await readTextOrWhy(ctx, file);
  const title = `Edit ${displayPath(ctx, file)}`;
  const failWith = async (why: string): Promise<ToolResult> => {
    const call = ctx.turn.toolCall({ title, kind: "edit", status: "in_progress", locations: [{ path: file }] });
    await call.fail(why);
    return { ok: false, output: why };
  };
  if (typeof read !== "string") return failWith(`could not read ${file}: ${read.why}`);
  const old = read;
  let next: string;
  if (find === undefined || find === "")
    next = `${old}${old === "" || old.endsWith("\n") ? "" : "\n"}Edited by the acp reference agent.\n`;
  else {
    const at = old.indexOf(find);
    if (at === -1) return failWith(`the text to replace does not occur in ${file}`);
    next = old.slice(0, at) + replace + old.slice(at + find.length);
  }
  return applyChange(ctx, file, old, next, title);
}

async function applyChange(
  ctx: TurnContext,
  file: string,
  old: string | null,
  next: string,
  title: string,
): Promise<ToolResult> {
  const call = ctx.turn.toolCall({
    title,
    kind: "edit",
    locations: [{ path: file }],
    content: [diffContent(file, old, next)],
    rawInput: { path: file, content: next },
  });
  const refused = await gateChange(ctx, call);
  if (refused !== undefined) return { ok: false, output: refused };
  await call.start();
  try {
    await writeText(ctx, file, next);
  } catch (error) {
    if (isAbortError(error) || ctx.turn.signal.aborted) throw error;
    await call.fail(`could not write ${file}: ${errorText(error)}`);
    return { ok: false, output: `could not write ${file}: ${errorText(error)}` };
  }
  await call.complete();
  return { ok: true, output: `${old === null ? "created" : "wrote"} ${file} (${next.length} characters)` };
}
