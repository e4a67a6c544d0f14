/**
 * Derives the method table from the schema: which defs are requests, responses and notifications (by the JSON-RPC
 * envelope defs that list them), paired by `x-method`, handled by `x-side`; cross-checked against meta.json and the
 * hand-written capability gates (whose paths are verified against the capability types).
 */
import { CAPABILITY_GATES, type CapabilityGate } from "./capabilities.js";
import { type LoadedSchema, type Schema, nullableInner, refName, soleRef } from "./schema.js";

export interface Meta {
  version: number;
  agentMethods: Record<string, string>;
  clientMethods: Record<string, string>;
  protocolMethods: Record<string, string>;
}

export type Side = "agent" | "client" | "protocol" | "both" | "proxy";

export interface MethodSpec {
  method: string;
  key: string;
  handledBy: Side;
  kind: "request" | "notification";
  params: string;
  result?: string;
  capability?: CapabilityGate;
  stability: "stable" | "unstable";
}

type Role = "request" | "response" | "notification";

const ENVELOPES: Record<string, Role> = {
  AgentRequest: "request",
  ClientRequest: "request",
  AgentResponse: "response",
  ClientResponse: "response",
  AgentNotification: "notification",
  ClientNotification: "notification",
};

/** Envelopes only some schemas have (the unstable schema's proxy chain). */
const OPTIONAL_ENVELOPES: Record<string, Role> = {
  ProxyRequest: "request",
  ProxyResponse: "response",
  ProxyNotification: "notification",
};

/**
 * The methods of a schema. The schema is the authority: every def with `x-method` is a method, its role comes from
 * the envelope that lists it and its handler from `x-side`. meta.json only names the constant keys and their order
 * (it may lag behind the schema: a method it lists that the schema no longer has is skipped, a method it lacks gets
 * a key derived from its name, `session/set_title` -> `session_set_title`).
 */
export function deriveMethods(
  schema: LoadedSchema,
  meta: Meta,
  stableMeta: Meta,
  usedGates: Set<string>,
  gates: Readonly<Record<string, CapabilityGate>> = CAPABILITY_GATES,
  stableSchema?: LoadedSchema,
): MethodSpec[] {
  const roles = classify(schema);
  const byMethod = new Map<string, Partial<Record<Role, string>>>();
  for (const [name, def] of Object.entries(schema.defs)) {
    const method = def["x-method"];
    if (!method) continue;
    const role = roles.get(name);
    if (!role) throw new Error(`${schema.file}: ${name} has x-method ${method} but no envelope lists it`);
    const slot = byMethod.get(method) ?? {};
    if (slot[role]) throw new Error(`${schema.file}: two ${role} defs for ${method}: ${slot[role]} and ${name}`);
    slot[role] = name;
    byMethod.set(method, slot);
  }
  // Stable: listed by the stable meta.json, or (when given) defined by the stable schema, which may be newer than
  // its meta.json (v2's tool_call/cancel and terminal/cancel).
  const stableNames = new Set(allMethods(stableMeta).map(([, m]) => m));
  if (stableSchema)
    for (const def of Object.values(stableSchema.defs)) if (def["x-method"]) stableNames.add(def["x-method"]);
  const keys = new Map<string, string>();
  for (const [key, method] of allMethods(meta)) if (!keys.has(method)) keys.set(method, key);
  const order = [...keys.keys()].filter((m) => byMethod.has(m));
  for (const method of byMethod.keys()) if (!keys.has(method)) order.push(method);
  const out: MethodSpec[] = [];
  for (const method of order) {
    const slot = byMethod.get(method)!;
    const key = keys.get(method) ?? methodKey(method);
    for (const kind of ["request", "notification"] as const) {
      const params = slot[kind];
      if (!params) continue;
      const handledBy = side(schema.defs[params]!, params);
      const spec: MethodSpec = {
        method,
        key,
        handledBy,
        kind,
        params,
        stability: stableNames.has(method) ? "stable" : "unstable",
      };
      if (kind === "request") {
        if (!slot.response) throw new Error(`${schema.file}: request ${method} has no response def`);
        if (side(schema.defs[slot.response]!, slot.response) !== handledBy) {
          throw new Error(`${schema.file}: ${params} and ${slot.response} disagree on x-side`);
        }
        spec.result = slot.response;
      }
      const gate = gates[method];
      if (gate) {
        verifyGate(schema, method, gate);
        usedGates.add(method);
        spec.capability = gate;
      }
      if (keys.has(method)) checkMetaSide(meta, spec);
      out.push(spec);
    }
    if (!slot.request && !slot.notification) throw new Error(`${schema.file}: ${method} has only a response def`);
  }
  return out;
}

/**
 * The constant key of a method meta.json does not list: `$/cancel_request` -> `cancel_request`, `document/didOpen` ->
 * `document_did_open`.
 */
export function methodKey(method: string): string {
  return method
    .replace(/^\$\//, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/\//g, "_")
    .toLowerCase();
}

export function allMethods(meta: Meta): Array<[string, string]> {
  return [
    ...Object.entries(meta.agentMethods),
    ...Object.entries(meta.clientMethods),
    ...Object.entries(meta.protocolMethods),
  ];
}

/** Role of each x-method def: from the envelope defs, plus the notifications the root schema lists directly. */
function classify(schema: LoadedSchema): Map<string, Role> {
  const roles = new Map<string, Role>();
  const note = (name: string, role: Role): void => {
    if (!schema.defs[name]?.["x-method"]) return;
    const prev = roles.get(name);
    if (prev && prev !== role) throw new Error(`${schema.file}: ${name} is both ${prev} and ${role}`);
    roles.set(name, role);
  };
  for (const [envelope, role] of Object.entries(ENVELOPES)) {
    const def = schema.defs[envelope];
    if (!def) throw new Error(`${schema.file}: missing envelope def ${envelope}`);
    for (const name of refsIn(def)) note(name, role);
  }
  for (const [envelope, role] of Object.entries(OPTIONAL_ENVELOPES)) {
    const def = schema.defs[envelope];
    if (def) for (const name of refsIn(def)) note(name, role);
  }
  for (const name of refsIn(schema.root.anyOf ?? [])) {
    if (ENVELOPES[name] || OPTIONAL_ENVELOPES[name]) continue;
    if (!name.endsWith("Notification")) throw new Error(`${schema.file}: root lists ${name}; cannot tell its role`);
    note(name, "notification");
  }
  return roles;
}

function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, out));
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") out.push(refName(v));
      else refsIn(v, out);
    }
  }
  return out;
}

function side(def: Schema, name: string): Side {
  const s = def["x-side"];
  if (s === "agent" || s === "client" || s === "protocol" || s === "both" || s === "proxy") return s;
  throw new Error(`${name}: unexpected x-side ${String(s)}`);
}

function checkMetaSide(meta: Meta, spec: MethodSpec): void {
  const inAgent = Object.values(meta.agentMethods).includes(spec.method);
  const inClient = Object.values(meta.clientMethods).includes(spec.method);
  const inProtocol = Object.values(meta.protocolMethods).includes(spec.method);
  const expected: Record<Side, boolean> = {
    agent: inAgent && !inProtocol,
    client: inClient && !inProtocol,
    both: inAgent && inClient,
    protocol: inProtocol,
    proxy: !inAgent && !inClient && !inProtocol,
  };
  if (!expected[spec.handledBy]) {
    throw new Error(`${spec.method}: x-side ${spec.handledBy} disagrees with the meta.json method lists`);
  }
}

/** Walks `path` from AgentCapabilities / ClientCapabilities through properties, refs and nullable wrappers. */
export function verifyGate(schema: LoadedSchema, method: string, gate: CapabilityGate): void {
  const rootName = gate.advertisedBy === "agent" ? "AgentCapabilities" : "ClientCapabilities";
  let node: Schema | undefined = schema.defs[rootName];
  let where = rootName;
  for (const key of gate.path) {
    node = resolve(schema, node!);
    const next: Schema | undefined = node.properties?.[key];
    if (!next) throw new Error(`${schema.file}: capability for ${method}: ${where} has no property "${key}"`);
    node = next;
    where += `.${key}`;
  }
}

function resolve(schema: LoadedSchema, node: Schema): Schema {
  for (;;) {
    const ref = soleRef(node);
    if (ref) {
      node = schema.defs[ref]!;
      continue;
    }
    const inner = nullableInner(node);
    if (inner) {
      node = inner;
      continue;
    }
    if (node.allOf?.length === 1 && !node.properties) {
      node = node.allOf[0]!;
      continue;
    }
    return node;
  }
}
