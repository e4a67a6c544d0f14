/**
 * Types of the protocol v2 (draft) apps: the typed method maps of v2 and v2-unstable, the method-name constants'
 * types, the extension-method name types of the official v2 API, and the options of `agent()` / `client()`.
 */
import type { AppOptions, ProtocolTypes } from "../app-types.js";
import type { MethodsOf } from "../methods.js";
import type * as v2 from "../../protocol/v2.js";
import type * as v2u from "../../protocol/v2-unstable.js";

/** The method maps of protocol v2, stable part. */
export interface V2Protocol extends ProtocolTypes {
  readonly agentRequests: v2.AgentRequestMap;
  readonly agentNotifications: v2.AgentNotificationMap;
  readonly clientRequests: v2.ClientRequestMap;
  readonly clientNotifications: v2.ClientNotificationMap;
}

/** The method maps of protocol v2 with its unstable additions. */
export interface V2UnstableProtocol extends ProtocolTypes {
  readonly agentRequests: v2u.AgentRequestMap;
  readonly agentNotifications: v2u.AgentNotificationMap;
  readonly clientRequests: v2u.ClientRequestMap;
  readonly clientNotifications: v2u.ClientNotificationMap;
}

/** Options of the v2 `agent()` and `client()`: those of the v1 apps but the flavor, which the entry decides. */
export type V2AppOptions = Omit<AppOptions, "unstable">;

/** The type of v2's `methods`. */
export type V2Methods = MethodsOf<
  (keyof v2.AgentRequestMap | keyof v2.AgentNotificationMap) & string,
  (keyof v2.ClientRequestMap | keyof v2.ClientNotificationMap) & string
>;

/** The type of v2-unstable's `methods`. */
export type V2UnstableMethods = MethodsOf<
  (keyof v2u.AgentRequestMap | keyof v2u.AgentNotificationMap) & string,
  (keyof v2u.ClientRequestMap | keyof v2u.ClientNotificationMap) & string
>;

/** A custom method name: it begins with `_`, so it cannot collide with present or future protocol methods. */
export type V2ExtensionMethod = `_${string}`;

/**
 * A method name that is not part of the v2 draft (methods of older or newer revisions), for the untyped overloads;
 * the draft's own method literals never fall through to them.
 */
export type UnrecognizedMethod<Method extends string, P extends ProtocolTypes = V2Protocol> = string extends Method
  ? Method
  : Method extends
        | keyof P["agentRequests"]
        | keyof P["agentNotifications"]
        | keyof P["clientRequests"]
        | keyof P["clientNotifications"]
        | "$/cancel_request"
    ? never
    : Method;
