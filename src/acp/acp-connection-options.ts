import type { ConnectionOptions } from "../jsonrpc/index.js";
import type { Admission } from "./admission.js";

/**
 * How this side checks what it sends against the schema:
 * - `"warn"` (default): a forgiving writer. Everything is checked; a message off the schema is reported once per
 *   kind of problem through the logger (method, schema, JSON path) and sent anyway, as the official SDK sends it.
 * - `"strict"` (or `true`, the former default): a request or notification off the schema is not sent (the call
 *   rejects with `SchemaValidationError`); a handler result off the schema is answered -32603. For tests and
 *   development.
 * - `"off"` (or `false`): nothing is checked, for forwarding a newer peer's messages unchanged.
 */
export type OutgoingValidation = "warn" | "strict" | "off" | boolean;

/**
 * How this side reads the results of its requests. Results are always parsed leniently, as the schema's
 * `x-deserialize-*` annotations say (repairs happen in place, silently). What leniency cannot repair:
 * - `"warn"` (default): a tolerant reader. The result is passed through as it came and the problem reported through
 *   the logger (the official SDK passes such results through too).
 * - `"strict"`: the call rejects with `InvalidResponseError`.
 */
export type ResponseValidation = "warn" | "strict";

/** Options of an ACP connection (both faces accept them as an optional last argument). */
export interface AcpConnectionOptions extends ConnectionOptions {
  /** Checking what this side sends: `"warn"` (default), `"strict"` (or `true`), `"off"` (or `false`). */
  validateOutgoing?: OutgoingValidation;
  /** Reading off-schema results from the peer: `"warn"` (default, passed through) or `"strict"` (rejected). */
  validateResponses?: ResponseValidation;
  /**
   * Refuse (with `CapabilityMissingError`) to call a method the peer did not advertise the capability for. Default
   * false.
   */
  enforceCapabilities?: boolean;
  /**
   * Agent side: refuse requests other than `initialize` (-32600) until one `initialize` succeeded. Default false:
   * the 1.x classes serve requests sent before `initialize`, as 1.9.0 did; the 2.x agent app turns it on when it
   * has an `initialize` handler, as 2.4.0 does.
   */
  requireInitialize?: boolean;
  /**
   * @internal Protocol-version rules applied before dispatch and around `initialize` (protocol v2's initialization
   * lifecycle, set by the v2 apps). None for v1.
   */
  admission?: Admission;
}

/** The outgoing check mode an option value means. */
export function outgoingMode(option: OutgoingValidation | undefined): "warn" | "strict" | "off" {
  if (option === undefined || option === "warn") return "warn";
  if (option === true || option === "strict") return "strict";
  return "off";
}
