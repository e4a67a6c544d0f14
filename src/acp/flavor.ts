import type { CompiledSchema, MethodInfo } from "../protocol/index.js";

/**
 * The protocol a connection speaks: the method table and compiled schemas of stable ACP v1, of v1 with its unstable
 * additions, of those plus Next Edit Suggestions and document sync (`@acpkit/sdk/experimental/nes`), or of protocol v2
 * (draft), stable or with its unstable additions.
 */
export interface ProtocolFlavor {
  readonly name: "stable" | "unstable" | "nes" | "v2" | "v2-unstable";
  /** The `protocolVersion` this flavor speaks. */
  readonly version: 1 | 2;
  readonly methods: readonly MethodInfo[];
  readonly schemas: Readonly<Record<string, CompiledSchema<unknown>>>;
  /**
   * Where each side's capabilities travel in `initialize`: v1 has `clientCapabilities` in the request and
   * `agentCapabilities` in the result, v2 has `capabilities` in both.
   */
  readonly capabilitiesField: { readonly request: string; readonly result: string };
}

/** v1's `initialize` capability fields. */
export const V1_CAPABILITY_FIELDS = Object.freeze({ request: "clientCapabilities", result: "agentCapabilities" });

/** v2's `initialize` capability fields. */
export const V2_CAPABILITY_FIELDS = Object.freeze({ request: "capabilities", result: "capabilities" });

/** The option key under which an entry point gives its apps a flavor (internal; entries only). */
export const APP_FLAVOR: unique symbol = Symbol.for("acpkit.appFlavor");

/** Which side of ACP a connection is. */
export type Side = "agent" | "client";

/** The other side. */
export function peerOf(side: Side): Side {
  return side === "agent" ? "client" : "agent";
}

/** Method-table entries by wire name, for one direction. */
export interface MethodsByKind {
  readonly requests: ReadonlyMap<string, MethodInfo>;
  readonly notifications: ReadonlyMap<string, MethodInfo>;
}

/** The method-table entries split by who handles them. */
export interface MethodIndex {
  /** Methods this side handles (the peer calls them). */
  readonly here: MethodsByKind;
  /** Methods the peer handles (this side calls them). */
  readonly peer: MethodsByKind;
}

const indexes = new WeakMap<ProtocolFlavor, Map<Side, MethodIndex>>();

function byKind(flavor: ProtocolFlavor, side: Side): MethodsByKind {
  const requests = new Map<string, MethodInfo>();
  const notifications = new Map<string, MethodInfo>();
  for (const info of flavor.methods) {
    if (info.handledBy !== side && info.handledBy !== "both") continue;
    (info.kind === "request" ? requests : notifications).set(info.method, info);
  }
  return { requests, notifications };
}

/** Builds (once per flavor and side) the lookup maps the dispatcher uses. */
export function methodIndex(flavor: ProtocolFlavor, side: Side): MethodIndex {
  let bySide = indexes.get(flavor);
  if (!bySide) indexes.set(flavor, (bySide = new Map()));
  let index = bySide.get(side);
  if (!index) {
    index = { here: byKind(flavor, side), peer: byKind(flavor, peerOf(side)) };
    bySide.set(side, index);
  }
  return index;
}
