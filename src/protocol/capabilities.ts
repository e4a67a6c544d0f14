/**
 * Capability gates at run time, derived from the generated method table: may this method be sent to a peer that
 * advertised these capabilities during `initialize`?
 *
 * Spec: an agent MUST NOT call a client method whose capability the client did not advertise (and vice versa); methods
 * without a gate (initialize, session/new, session/prompt, session/update, ...) are baseline.
 * See https://agentclientprotocol.com/protocol/initialization#capabilities
 */
import type { MethodEntry } from "./method-entry.js";
import { METHOD_TABLE as NES_METHOD_TABLE } from "./generated/methods.nes.js";
import { METHOD_TABLE } from "./generated/methods.unstable.js";

/** The unstable table is a superset of the stable one, the gates of shared methods are identical; NES adds its own. */
const GATES = new Map<string, MethodEntry>();
for (const entry of [...METHOD_TABLE, ...NES_METHOD_TABLE])
  if (!GATES.has(entry.method)) GATES.set(entry.method, entry);

/**
 * Whether the value at `path` in `capabilities` advertises support: present and neither `null` nor `false`
 * (`loadSession: true`, `sessionCapabilities.list: {}`, `terminal: true`).
 */
export function hasCapability(capabilities: unknown, path: readonly string[]): boolean {
  let node: unknown = capabilities;
  for (const key of path) {
    if (node === null || typeof node !== "object") return false;
    node = (node as Record<string, unknown>)[key];
  }
  return node !== undefined && node !== null && node !== false;
}

/**
 * Whether `method` may be sent to a peer that advertised `peerCapabilities` (its `agentCapabilities` from the
 * initialize response, or its `clientCapabilities` from the initialize request). True for ungated methods, for
 * methods not in the table (extension methods), and for gates the sending side advertises itself (e.g. `mcp/connect`,
 * which the client handles but the agent's `mcpCapabilities.acp` gates). `peer` names the peer's role; it defaults to
 * the side that handles the method (for `both`-sided methods, the side that advertises the gate).
 */
export function peerSupports(method: string, peerCapabilities: unknown, peer?: "agent" | "client"): boolean {
  const gate = GATES.get(method)?.capability;
  if (!gate) return true;
  const entry = GATES.get(method)!;
  const role =
    peer ?? (entry.handledBy === "agent" || entry.handledBy === "client" ? entry.handledBy : gate.advertisedBy);
  if (role !== gate.advertisedBy) return true;
  return hasCapability(peerCapabilities, gate.path);
}
