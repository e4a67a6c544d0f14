/**
 * The nested method-name constants of the 2.x API: `methods.agent.session.new === "session/new"`.
 *
 * Derived at run time from the method table (split on "/", snake_case segments to camelCase, `$/...` under
 * `protocol`), and typed by the same rule from the generated method maps, so a method added to the schema
 * appears here with its literal type and nothing is spelled twice.
 */
import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
} from "../protocol/index.js";
import type * as unstable from "../protocol/unstable.js";
import { PROTOCOL_METHODS } from "../protocol/index.js";
import type { NesAgentNotificationMap, NesAgentRequestMap } from "../protocol/nes.js";
import { nesFlavor, stableFlavor, unstableFlavor } from "./flavors.js";
import type { ProtocolFlavor } from "./flavor.js";

/** `"set_config_option"` -> `"setConfigOption"`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

type KeyOf<Rest extends string> = Rest extends `${infer Group}/${string}` ? CamelCase<Group> : CamelCase<Rest>;

type ValueOf<
  Names extends string,
  Prefix extends string,
  K extends string,
  Rest extends string,
> = Rest extends `${infer Group}/${string}` ? MethodTree<Names, `${Prefix}${Group}/`> : K;

/**
 * The nested constants for a union of wire names below `Prefix`: one level per "/" segment, segment names in
 * camelCase, wire names at the leaves.
 */
export type MethodTree<Names extends string, Prefix extends string = ""> = {
  readonly [K in Names as K extends `${Prefix}${infer Rest}` ? KeyOf<Rest> : never]: K extends `${Prefix}${infer Rest}`
    ? ValueOf<Names, Prefix, K, Rest>
    : never;
};

/** The wire names of the protocol-level methods (`$/cancel_request`). */
export type ProtocolMethodName = (typeof PROTOCOL_METHODS)[keyof typeof PROTOCOL_METHODS];

/** The `methods` shape for a set of method maps. */
export type MethodsOf<AgentMethods extends string, ClientMethods extends string> = {
  readonly agent: MethodTree<AgentMethods>;
  readonly client: MethodTree<ClientMethods>;
  readonly protocol: MethodTree<ProtocolMethodName, "$/">;
};

/** The type of `methods` (stable ACP v1). */
export type StableMethods = MethodsOf<
  (keyof AgentRequestMap | keyof AgentNotificationMap) & string,
  (keyof ClientRequestMap | keyof ClientNotificationMap) & string
>;

/** The type of `unstableMethods` (ACP v1 with its unstable additions). */
export type UnstableMethods = MethodsOf<
  (keyof unstable.AgentRequestMap | keyof unstable.AgentNotificationMap) & string,
  (keyof unstable.ClientRequestMap | keyof unstable.ClientNotificationMap) & string
>;

/** The type of `nesMethods` (the unstable methods plus `nes/*` and `document/*`). */
export type NesMethods = MethodsOf<
  (
    | keyof unstable.AgentRequestMap
    | keyof unstable.AgentNotificationMap
    | keyof NesAgentRequestMap
    | keyof NesAgentNotificationMap
  ) &
    string,
  (keyof unstable.ClientRequestMap | keyof unstable.ClientNotificationMap) & string
>;

/** Runtime twin of `CamelCase`. */
export function camelCase(segment: string): string {
  return segment.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

type Tree = { [key: string]: Tree | string };

function place(root: Tree, path: string, method: string): void {
  const segments = path.split("/").map(camelCase);
  let node = root;
  for (const segment of segments.slice(0, -1)) {
    const next = node[segment];
    if (typeof next === "string") throw new Error(`method name "${method}" collides with the method "${next}"`);
    node = next ?? (node[segment] = {});
  }
  node[segments[segments.length - 1]!] = method;
}

function freeze(tree: Tree): Tree {
  for (const value of Object.values(tree)) if (typeof value !== "string") freeze(value);
  return Object.freeze(tree);
}

/** Builds the nested constants of a flavor from its method table (and the protocol-level methods). */
export function buildMethods(flavor: ProtocolFlavor): { agent: Tree; client: Tree; protocol: Tree } {
  const tree = { agent: {} as Tree, client: {} as Tree, protocol: {} as Tree };
  const protocolNames = new Set<string>(Object.values(PROTOCOL_METHODS));
  for (const info of flavor.methods) {
    if (info.method.startsWith("$/")) {
      protocolNames.add(info.method);
      continue;
    }
    if (info.handledBy === "agent" || info.handledBy === "both") place(tree.agent, info.method, info.method);
    if (info.handledBy === "client" || info.handledBy === "both") place(tree.client, info.method, info.method);
  }
  for (const name of protocolNames) place(tree.protocol, name.slice(2), name);
  freeze(tree);
  return Object.freeze(tree);
}

/**
 * ACP method-name constants (stable v1), with literal types: use them with `onRequest`, `onNotification`,
 * `request` and `notify` instead of spelling wire names. `agent` holds what the agent handles, `client` what the
 * client handles, `protocol` the `$/` methods both sides use.
 */
export const methods = buildMethods(stableFlavor) as unknown as StableMethods;

/** `methods` with the unstable additions (for apps created with `{ unstable: true }`). */
export const unstableMethods = buildMethods(unstableFlavor) as unknown as UnstableMethods;

/** `methods` of the NES entry (`@acpkit/sdk/experimental/nes`): the unstable methods plus `nes/*` and `document/*`. */
export const nesMethods = buildMethods(nesFlavor) as unknown as NesMethods;
