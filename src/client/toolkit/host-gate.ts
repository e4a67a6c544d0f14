/**
 * The gate of the client's own hosts: whether the client serves an agent's `fs/read_text_file`,
 * `fs/write_text_file` or `terminal/create` (inside the session's roots) under the client's permission policy.
 *
 * The agent decides when to send `session/request_permission`; the hosts are where the client decides for itself.
 * `brokerGate` makes the same policy that answers the agent's permission requests govern the hosts:
 * - an access covered by a permission the agent asked for and the policy allowed shortly before (same session, a
 *   tool call of a matching kind naming the same path in its locations, path-like `rawInput` or diffs; any
 *   `execute` call for a terminal) is served without asking again, so an interactive user is not asked twice;
 * - anything else is put to the policy as a permission request of its own (kind `read`, `edit` or `execute`, the
 *   path as its location, options allow/reject once/always), through the broker, so `session/cancel` answers it and
 *   "always" answers are remembered where the policy remembers them.
 * So `deny-all` serves no reads, no writes and no terminals, `allow-reads` serves reads only, `allow-all` all, an
 * interactive policy asks (with `reads: "serve"`, only about writes and terminals), and `rules:` rules match these
 * requests like any other.
 *
 * Browser-safe: the hosts that call a gate live in `@acpkit/sdk/node`.
 * @see https://agentclientprotocol.com/protocol/tool-calls#requesting-permission
 */
import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ToolKind,
} from "../../protocol/index.js";
import type { PermissionBroker } from "./permission-broker.js";
import { selectedKind } from "./permission-policy.js";
import { normalizePath, requestPaths } from "./permission-rules.js";

/** An access the client's hosts are asked to serve for the agent (already inside the session's roots). */
export type HostAccess =
  | { kind: "read"; sessionId: string; path: string }
  | { kind: "write"; sessionId: string; path: string }
  | { kind: "terminal"; sessionId: string; command: string; args: readonly string[]; cwd: string };

/** Serve the access (true), or refuse it (false, or the reason as a string). */
export type HostGate = (access: HostAccess) => boolean | string | Promise<boolean | string>;

/** Options of `brokerGate`. */
export interface BrokerGateOptions {
  /** How long a permission the policy granted covers matching host accesses. Default 120000 ms. */
  coverMs?: number;
  /** The policy's name, quoted in refusals (e.g. "deny-all"). */
  policyName?: string;
  /**
   * Reads: `"policy"` (default) puts them to the policy like writes; `"serve"` serves every read inside the roots
   * without asking (for an interactive policy, where asking about each read would drown the user in questions).
   */
  reads?: "policy" | "serve";
}

/** The tool call ids of the gate's own permission requests start with this. */
export const HOST_CALL_PREFIX = "acpkit_host_";

const KIND_OF: Record<HostAccess["kind"], ToolKind> = { read: "read", write: "edit", terminal: "execute" };
const WRITE_KINDS: readonly ToolKind[] = ["edit", "delete", "move"];

const OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  { optionId: "reject_always", name: "Always reject", kind: "reject_always" },
];

interface Grant {
  sessionId: string;
  kind: ToolKind;
  paths: string[];
  at: number;
}

/** Whether a granted permission covers an access: same session, matching kind, same path (terminals: any command). */
function covers(grant: Grant, access: HostAccess): boolean {
  if (grant.sessionId !== access.sessionId) return false;
  if (access.kind === "terminal") return grant.kind === "execute";
  const path = normalizePath(access.path);
  if (!grant.paths.includes(path)) return false;
  return access.kind === "read" ? true : WRITE_KINDS.includes(grant.kind);
}

/** The paths a permission request names: its locations and path-like `rawInput` keys, and the paths of its diffs. */
function grantedPaths(request: RequestPermissionRequest): string[] {
  const paths = new Set(requestPaths(request));
  for (const item of request.toolCall.content ?? [])
    if (item.type === "diff" && typeof item.path === "string") paths.add(normalizePath(item.path));
  return [...paths];
}

/** The permission request that puts a host access to the policy. */
export function hostAccessRequest(access: HostAccess, toolCallId: string): RequestPermissionRequest {
  const title =
    access.kind === "terminal"
      ? `Run ${[access.command, ...access.args].join(" ")} (in ${access.cwd})`
      : `${access.kind === "read" ? "Read" : "Write"} ${access.path}`;
  const rawInput =
    access.kind === "terminal"
      ? { command: access.command, args: [...access.args], cwd: access.cwd }
      : { path: access.path };
  return {
    sessionId: access.sessionId,
    toolCall: {
      toolCallId,
      title,
      kind: KIND_OF[access.kind],
      status: "pending",
      locations: [{ path: access.kind === "terminal" ? access.cwd : access.path }],
      rawInput,
    },
    options: OPTIONS,
  };
}

/** A `HostGate` run by `broker`'s policy; see the file's comment. */
export function brokerGate(broker: PermissionBroker, options: BrokerGateOptions = {}): HostGate {
  const coverMs = options.coverMs ?? 120_000;
  const grants: Grant[] = [];
  let counter = 0;
  broker.onAnswer((request, response) => {
    if (request.toolCall.toolCallId.startsWith(HOST_CALL_PREFIX)) return; // the gate's own question: "once" means once
    const kind = selectedKind(request, response);
    if (kind !== "allow_once" && kind !== "allow_always") return;
    grants.push({
      sessionId: request.sessionId,
      kind: request.toolCall.kind ?? "other",
      paths: grantedPaths(request),
      at: Date.now(),
    });
  });
  const by =
    options.policyName === undefined
      ? "the client's permission policy"
      : `the client's permission policy (${options.policyName})`;
  return async (access) => {
    if (access.kind === "read" && options.reads === "serve") return true;
    const now = Date.now();
    while (grants.length > 0 && now - grants[0]!.at > coverMs) grants.shift();
    if (grants.some((grant) => covers(grant, access))) return true;
    const response: RequestPermissionResponse = await broker.request(
      hostAccessRequest(access, `${HOST_CALL_PREFIX}${++counter}`),
    );
    const kind =
      response.outcome.outcome === "selected"
        ? OPTIONS.find((option) => option.optionId === (response.outcome as { optionId: string }).optionId)?.kind
        : undefined;
    if (kind === "allow_once" || kind === "allow_always") return true;
    return response.outcome.outcome === "cancelled"
      ? `the turn was cancelled before ${by} answered`
      : `${by} refused it`;
  };
}
