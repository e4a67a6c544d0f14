/**
 * The shape of one row of the generated method table (`METHOD_TABLE` in ./generated/methods*.ts). Dispatch, typed
 * calls, capability checks and the conformance coverage list are all derived from these rows.
 */

/**
 * The side that handles (receives) a method, from the schema's `x-side`. `proxy` methods (`proxy/*`) pass between a
 * conductor and its proxies: typed, never routed by the agent or client APIs.
 */
export type HandledBy = "agent" | "client" | "protocol" | "both" | "proxy";

export interface CapabilityGateEntry {
  /** Whose `initialize` capabilities carry the flag. */
  readonly advertisedBy: "agent" | "client";
  /** Property path inside `AgentCapabilities` / `ClientCapabilities`, e.g. `["sessionCapabilities", "list"]`. */
  readonly path: readonly string[];
}

export interface MethodEntry {
  /** Wire name, e.g. `session/new`. */
  readonly method: string;
  /** meta.json key, e.g. `session_new` (the key in `AGENT_METHODS` / `CLIENT_METHODS` / `PROTOCOL_METHODS`). */
  readonly key: string;
  readonly handledBy: HandledBy;
  readonly kind: "request" | "notification";
  /** Schema def name of the params, e.g. `NewSessionRequest`. */
  readonly params: string;
  /** Schema def name of the result (requests only), e.g. `NewSessionResponse`. */
  readonly result?: string;
  /** The capability that must be advertised before this method may be used; absent for baseline methods. */
  readonly capability?: CapabilityGateEntry;
  /** `unstable` for methods only the unstable schema has. */
  readonly stability: "stable" | "unstable";
}

/** Alias of {@link MethodEntry}. */
export type MethodInfo = MethodEntry;
