/** What both players share: options, the result, frame descriptions, delays. */
import type { JsonRpcId } from "../../jsonrpc/messages.js";
import type { CassetteEntry } from "../cassette.js";
import type { Difference } from "./volatile.js";

/** Options of `replayAgent` and `replayClient`. */
export interface ReplayOptions {
  /** Keep the recorded gaps between frames (default: as fast as the other side allows). */
  timing?: boolean;
  /** Longest recorded gap kept with `timing`. Default 10 s. */
  maxGapMs?: number;
  /** How long to wait for the other side's next frame before declaring it missing. Default 30 s. */
  timeoutMs?: number;
  /**
   * Once the conversation has diverged (a divergence found, or a frame of the other side that the recording does
   * not have waiting), how long the other side may stay silent before the frame awaited is declared missing.
   * Default 2 s (at most `timeoutMs`).
   */
  divergedTimeoutMs?: number;
  /** Keys (e.g. `version`) or JSON paths (e.g. `$.result.agentInfo`) to leave out of comparisons. */
  ignore?: readonly string[];
  /** Hears about each divergence as it is found. */
  onDivergence?: (divergence: Divergence) => void;
}

/**
 * Where the live conversation left the recording:
 * - `differs`: the live frame matches the recorded one in kind, but its content differs (see `differences`);
 * - `missing`: a recorded frame never came;
 * - `unexpected`: a live frame the recording does not have there.
 */
export interface Divergence {
  kind: "differs" | "missing" | "unexpected";
  /** Index of the recorded frame in the cassette's entries (for `unexpected`, where it would have been). */
  entry: number;
  /** What the frame is, e.g. `agent session/update agent_message_chunk`. */
  frame: string;
  message: string;
  differences?: Difference[];
}

export interface ReplayResult {
  /** Frames this side sent. */
  sent: number;
  /** Frames of the other side compared with the recording. */
  compared: number;
  divergences: Divergence[];
  /** True when the whole recording was played. */
  completed: boolean;
}

export const idKey = (id: JsonRpcId | undefined): string => JSON.stringify(id ?? null);

/** `agent session/update agent_message_chunk`, `client session/prompt (id 2)`, `agent answer to session/prompt`. */
export function describeEntry(entry: CassetteEntry, methodOf?: (id: JsonRpcId) => string | undefined): string {
  if (entry.frame.kind === "unparsable") return `${entry.from} line ${JSON.stringify(entry.frame.line.slice(0, 60))}`;
  if (entry.frame.kind === "oversized") return `${entry.from} oversized frame (${entry.frame.bytes} bytes)`;
  return `${entry.from} ${describeMessage(entry.frame.value, methodOf)}`;
}

export function describeMessage(value: unknown, methodOf?: (id: JsonRpcId) => string | undefined): string {
  const m = (value ?? {}) as { method?: unknown; id?: JsonRpcId; params?: { update?: { sessionUpdate?: unknown } } };
  if (typeof m.method === "string") {
    const kind =
      m.method === "session/update" && typeof m.params?.update?.sessionUpdate === "string"
        ? ` ${m.params.update.sessionUpdate}`
        : "";
    return `${m.method}${kind}${"id" in m ? ` (id ${JSON.stringify(m.id)})` : ""}`;
  }
  const method = m.id !== undefined ? methodOf?.(m.id) : undefined;
  return (
    `${"error" in (value as object) ? "error answer" : "answer"}${method ? ` to ${method}` : ""} (id ` +
    `${JSON.stringify(m.id)})`
  );
}

/** The message without the JSON-RPC envelope fields that differ between runs. */
export function body(value: unknown): Record<string, unknown> {
  const { jsonrpc: _j, id: _i, ...rest } = (value ?? {}) as Record<string, unknown>;
  return rest;
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
