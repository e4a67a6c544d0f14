/**
 * Permission requests (`session/request_permission`) with standard option sets and a per-session memory of
 * "always" answers by tool kind. The spec: the client answers with the selected option or `cancelled`; when the turn
 * is cancelled the client MUST answer pending requests `cancelled`, so a `cancelled` outcome ends the turn here.
 * @see https://agentclientprotocol.com/protocol/tool-calls#requesting-permission
 */
import type {
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionResponse,
  ToolCallUpdate,
  ToolKind,
} from "../../protocol/index.js";
import { TurnCancelledError } from "./cancelled.js";

/** The four standard options; `optionId` equals `kind`. */
export const PERMISSION_OPTIONS = {
  allowOnce: { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  allowAlways: { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
  rejectOnce: { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  rejectAlways: { optionId: "reject_always", name: "Always reject", kind: "reject_always" },
} as const satisfies Record<string, PermissionOption>;

/** Allow once, always allow, reject, always reject. */
export const STANDARD_PERMISSION_OPTIONS: readonly PermissionOption[] = [
  PERMISSION_OPTIONS.allowOnce,
  PERMISSION_OPTIONS.allowAlways,
  PERMISSION_OPTIONS.rejectOnce,
  PERMISSION_OPTIONS.rejectAlways,
];

/** Allow once or reject: for actions that should never be remembered. */
export const ONCE_PERMISSION_OPTIONS: readonly PermissionOption[] = [
  PERMISSION_OPTIONS.allowOnce,
  PERMISSION_OPTIONS.rejectOnce,
];

/** The remembered `allow_always` / `reject_always` answers of one session, by tool kind (absent kind = "other"). */
export class PermissionMemory {
  readonly #byKind = new Map<ToolKind, "allow" | "reject">();

  recall(kind: ToolKind | null | undefined): "allow" | "reject" | undefined {
    return this.#byKind.get(kind ?? "other");
  }

  remember(kind: ToolKind | null | undefined, decision: "allow" | "reject"): void {
    this.#byKind.set(kind ?? "other", decision);
  }

  /** Forgets one kind, or everything. */
  forget(kind?: ToolKind): void {
    if (kind === undefined) this.#byKind.clear();
    else this.#byKind.delete(kind);
  }
}

/** What `askPermission` needs from a prompt turn (a `PromptTurn` is one). */
export interface PermissionContext {
  readonly sessionId: string;
  readonly permissions: PermissionMemory;
  request<R>(method: string, params: unknown): Promise<R>;
  /** Ends the turn as cancelled. */
  cancel(reason?: unknown): void;
}

/** The answer: allowed or not, which option (absent when it came from memory), whether memory answered. */
export interface PermissionDecision {
  allowed: boolean;
  optionId?: string;
  kind?: PermissionOptionKind;
  remembered: boolean;
}

/**
 * Asks the user whether `toolCall` may run, unless an earlier "always" answer for its kind decides. An
 * `allow_always` / `reject_always` answer is remembered for the session. A `cancelled` outcome cancels the turn and
 * throws `TurnCancelledError` (which the turn answers as `stopReason: "cancelled"`).
 */
export async function askPermission(
  context: PermissionContext,
  toolCall: ToolCallUpdate,
  options: readonly PermissionOption[] = STANDARD_PERMISSION_OPTIONS,
): Promise<PermissionDecision> {
  const remembered = context.permissions.recall(toolCall.kind);
  if (remembered !== undefined) return { allowed: remembered === "allow", remembered: true };
  const response = await context.request<RequestPermissionResponse>("session/request_permission", {
    sessionId: context.sessionId,
    toolCall,
    options: [...options],
  });
  if (response.outcome.outcome === "cancelled") {
    context.cancel(new TurnCancelledError("the client cancelled the permission request"));
    throw new TurnCancelledError("the client cancelled the permission request");
  }
  const optionId = response.outcome.optionId;
  const kind = options.find((option) => option.optionId === optionId)?.kind;
  if (kind === undefined) throw new Error(`the client selected an option that was not offered: ${optionId}`);
  if (kind === "allow_always") context.permissions.remember(toolCall.kind, "allow");
  if (kind === "reject_always") context.permissions.remember(toolCall.kind, "reject");
  return { allowed: kind === "allow_once" || kind === "allow_always", optionId, kind, remembered: false };
}
