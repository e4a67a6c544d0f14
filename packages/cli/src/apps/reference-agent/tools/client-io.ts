/**
 * File access for the reference agent's tools: through the client (the toolkit's `turn.readFile` / `writeFile`)
 * when it advertised the capability, so the editor's unsaved buffers are what the agent sees and changes; else the
 * local disk. Requests to the client carry the turn's signal (a cancel aborts them at once).
 * @see https://agentclientprotocol.com/protocol/file-system
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { isAbortError } from "@acpkit/sdk/agent-toolkit";
import { CapabilityMissingError } from "@acpkit/sdk";
import type { TurnContext } from "../context.js";

/** `viaClient()`, or `locally()` when the client lacks the capability (nothing was sent to it then). */
async function clientOrDisk<T>(viaClient: () => Promise<T>, locally: () => Promise<T>): Promise<T> {
  try {
    return await viaClient();
  } catch (error) {
    if (!(error instanceof CapabilityMissingError)) throw error;
    return locally();
  }
}

/** Reads a text file (absolute path). */
export function readText(ctx: TurnContext, file: string): Promise<string> {
  return clientOrDisk(
    () => ctx.turn.readFile(file),
    () => readFile(file, "utf8"),
  );
}

/** Reads a text file, or null when it cannot be read (a new file). Cancellation still throws. */
export async function readTextOrNull(ctx: TurnContext, file: string): Promise<string | null> {
  const read = await readTextOrWhy(ctx, file);
  return typeof read === "string" ? read : null;
}

/** Reads a text file, or says why it could not be read (`{ why }`). Cancellation still throws. */
export async function readTextOrWhy(ctx: TurnContext, file: string): Promise<string | { why: string }> {
  try {
    return await readText(ctx, file);
  } catch (error) {
    if (isAbortError(error) || ctx.turn.signal.aborted) throw error;
    return { why: error instanceof Error ? error.message : String(error) };
  }
}

/** Writes a text file (absolute path), creating it (and, on the local disk, its folders). */
export function writeText(ctx: TurnContext, file: string, content: string): Promise<void> {
  return clientOrDisk(
    () => ctx.turn.writeFile(file, content),
    async () => {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content, "utf8");
    },
  );
}
