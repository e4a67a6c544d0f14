/**
 * File access for the reference agent's tools: through the client (`fs/read_text_file`, `fs/write_text_file`)
 * when it advertised the capability, so the editor's unsaved buffers are what the agent sees and changes; else the
 * local disk. Requests to the client carry the turn's signal (a cancel aborts them at once).
 * @see https://agentclientprotocol.com/protocol/file-system
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { isAbortError } from "../../../agent/toolkit/index.js";
import type { ReadTextFileResponse } from "../../../protocol/index.js";
import type { TurnContext } from "../context.js";

/** Reads a text file (absolute path). */
export async function readText(ctx: TurnContext, file: string): Promise<string> {
  if (ctx.clientCapabilities.fs?.readTextFile === true) {
    const response = await ctx.turn.request<ReadTextFileResponse>("fs/read_text_file", { sessionId: ctx.turn.sessionId, path: file });
    return response.content;
  }
  return readFile(file, "utf8");
}

/** Reads a text file, or null when it cannot be read (a new file). Cancellation still throws. */
export async function readTextOrNull(ctx: TurnContext, file: string): Promise<string | null> {
  try {
    return await readText(ctx, file);
  } catch (error) {
    if (isAbortError(error) || ctx.turn.signal.aborted) throw error;
    return null;
  }
}

/** Writes a text file (absolute path), creating it (and, on the local disk, its folders). */
export async function writeText(ctx: TurnContext, file: string, content: string): Promise<void> {
  if (ctx.clientCapabilities.fs?.writeTextFile === true) {
    await ctx.turn.request("fs/write_text_file", { sessionId: ctx.turn.sessionId, path: file, content });
    return;
  }
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content, "utf8");
}
