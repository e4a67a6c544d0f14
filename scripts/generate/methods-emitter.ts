/**
 * Emits the method table (data), the typed method maps and the meta.json constants for one schema flavour.
 */
import type { Meta, MethodSpec } from "./methods.js";
import { type SourceInfo, header, literal, propKey } from "./text.js";

export function emitMethods(specs: MethodSpec[], meta: Meta, sources: SourceInfo[], typesModule: string): string {
  const out = [header(sources, "The ACP method table, typed method maps and method-name constants.")];
  out.push(`import type * as T from "${typesModule}";`);
  out.push(`import type { MethodEntry } from "../method-entry.js";`, "");
  out.push(
    "/** Every ACP method: who handles it, request or notification, its params/result defs, its capability gate. */",
    "export const METHOD_TABLE: readonly MethodEntry[] = Object.freeze([",
  );
  for (const s of specs) out.push(`  ${entryLiteral(s)},`);
  out.push("]);", "");

  const maps: Array<[string, string, (s: MethodSpec) => boolean]> = [
    [
      "AgentRequestMap",
      "Requests the agent handles (sent by the client).",
      (s) => s.kind === "request" && handles(s, "agent"),
    ],
    [
      "AgentNotificationMap",
      "Notifications the agent handles (sent by the client).",
      (s) => s.kind === "notification" && handles(s, "agent"),
    ],
    [
      "ClientRequestMap",
      "Requests the client handles (sent by the agent).",
      (s) => s.kind === "request" && handles(s, "client"),
    ],
    [
      "ClientNotificationMap",
      "Notifications the client handles (sent by the agent).",
      (s) => s.kind === "notification" && handles(s, "client"),
    ],
    [
      "ProtocolNotificationMap",
      "Protocol-level notifications either side handles.",
      (s) => s.kind === "notification" && s.handledBy === "protocol",
    ],
  ];
  for (const [name, doc, pick] of maps) {
    out.push(`/** ${doc} */`, `export interface ${name} {`);
    for (const s of specs.filter(pick)) {
      const result = s.result ? ` result: T.${s.result};` : "";
      out.push(`  ${literal(s.method)}: { params: T.${s.params};${result} };`);
    }
    out.push("}", "");
  }

  const proxy = specs.filter((s) => s.handledBy === "proxy");
  if (proxy.length) {
    for (const kind of ["request", "notification"] as const) {
      const name = kind === "request" ? "ProxyRequestMap" : "ProxyNotificationMap";
      out.push(
        `/** ${kind === "request" ? "Requests" : "Notifications"} exchanged between a conductor and its ` +
          `proxies (\`proxy/*\`). */`,
      );
      out.push(`export interface ${name} {`);
      for (const s of proxy.filter((p) => p.kind === kind))
        out.push(`  ${literal(s.method)}: { params: T.${s.params};${s.result ? ` result: T.${s.result};` : ""} };`);
      out.push("}", "");
    }
  }

  out.push(
    ...constant(
      "AGENT_METHODS",
      "Methods the agent handles, by key.",
      keyed(specs, (s) => handles(s, "agent")),
    ),
  );
  out.push(
    ...constant(
      "CLIENT_METHODS",
      "Methods the client handles, by key.",
      keyed(specs, (s) => handles(s, "client")),
    ),
  );
  out.push(
    ...constant(
      "PROTOCOL_METHODS",
      "Protocol-level methods either side handles.",
      keyed(specs, (s) => s.handledBy === "protocol"),
    ),
  );
  if (proxy.length) {
    out.push(
      ...constant(
        "PROXY_METHODS",
        "Methods a conductor exchanges with the proxies of a proxy chain (typed, not routed by the agent or " +
          "client APIs).",
        keyed(specs, (s) => s.handledBy === "proxy"),
      ),
    );
  }
  out.push("/** The ACP protocol version this table describes (meta.json `version`). */");
  out.push(`export const PROTOCOL_VERSION = ${meta.version};`, "");
  return out.join("\n");
}

/** `{ key: method }` for the specs `pick` selects, in table order, each method once. */
function keyed(specs: MethodSpec[], pick: (s: MethodSpec) => boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of specs) if (pick(s)) out[s.key] = s.method;
  return out;
}

function handles(s: MethodSpec, side: "agent" | "client"): boolean {
  return s.handledBy === side || s.handledBy === "both";
}

function entryLiteral(s: MethodSpec): string {
  const parts = [
    `method: ${literal(s.method)}`,
    `key: ${literal(s.key)}`,
    `handledBy: ${literal(s.handledBy)}`,
    `kind: ${literal(s.kind)}`,
    `params: ${literal(s.params)}`,
  ];
  if (s.result) parts.push(`result: ${literal(s.result)}`);
  if (s.capability) {
    const path = s.capability.path.map((p) => literal(p)).join(", ");
    parts.push(`capability: { advertisedBy: ${literal(s.capability.advertisedBy)}, path: [${path}] }`);
  }
  parts.push(`stability: ${literal(s.stability)}`);
  return `{ ${parts.join(", ")} }`;
}

function constant(name: string, doc: string, values: Record<string, string>): string[] {
  const lines = [`/** ${doc} */`, `export const ${name} = {`];
  for (const [k, v] of Object.entries(values)) lines.push(`  ${propKey(k)}: ${literal(v)},`);
  lines.push("} as const;", "");
  return lines;
}
