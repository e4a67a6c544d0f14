/**
 * Checks every message one side sent against the official ACP JSON schema (schema/v1/schema.json, compiled by
 * acpkit's `src/protocol`): requests and notifications by their params definition from the method table,
 * responses by the result definition of the method of the request they answer (ids mapped from what that side
 * received), errors by `Error`. Strict: the validators' `check(value)` lists every issue.
 */
import type { TapEvent } from "./impl.js";
import type { WireLine } from "./spawn.js";

export type Side = "agent" | "client";

interface MethodInfo {
  method: string;
  handledBy: Side | "both" | "protocol";
  kind: "request" | "notification";
  params: string;
  result?: string;
}

interface Validator {
  check(value: unknown): unknown[];
}

export interface Protocol {
  schemas: Record<string, Validator>;
  methods: MethodInfo[];
}

export interface Violation {
  side: Side;
  /** Position among the messages this side sent. */
  index: number;
  what: string;
  issues: string[];
  preview: string;
}

const PROTOCOL_ENTRY = new URL("../../../../src/protocol/index.js", import.meta.url).href;

function isMethodTable(value: unknown): value is MethodInfo[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((m) => m && typeof m === "object" && "method" in m && "handledBy" in m && "kind" in m)
  );
}

/** acpkit's compiled validators and method table, or why they cannot be loaded (yet). */
export async function loadProtocol(): Promise<Protocol | string> {
  let module: Record<string, unknown>;
  try {
    module = (await import(PROTOCOL_ENTRY)) as Record<string, unknown>;
  } catch (error) {
    return `cannot load acpkit's protocol module: ${error instanceof Error ? error.message : String(error)}`;
  }
  const schemas = module.schemas as Record<string, Validator> | undefined;
  if (!schemas || typeof schemas !== "object") return "src/protocol/index.ts exports no `schemas`";
  const tables = Object.entries(module).filter(([, value]) => isMethodTable(value));
  const table = tables.find(([name]) => !/unstable/i.test(name)) ?? tables[0];
  if (!table) return "src/protocol/index.ts exports no method table (MethodInfo[])";
  return { schemas, methods: table[1] as MethodInfo[] };
}

function formatIssue(issue: unknown): string {
  if (issue && typeof issue === "object") {
    const { path, message, expected, received } = issue as Record<string, unknown>;
    if (typeof expected === "string")
      return `${String(path ?? "$")}: expected ${expected}, received ${String(received)}`;
    if (typeof message === "string") return `${Array.isArray(path) ? path.join(".") : String(path ?? "")}: ${message}`;
  }
  return JSON.stringify(issue);
}

function preview(message: unknown): string {
  const text = JSON.stringify(message) ?? String(message);
  return text.length > 240 ? `${text.slice(0, 240)}…` : text;
}

const idKey = (id: unknown): string => JSON.stringify(id);

/** The messages of a conversation from one side's point of view: "out" = sent by `side`. */
export function wireEvents(wire: readonly WireLine[], side: Side): { events: TapEvent[]; unparsable: WireLine[] } {
  const events: TapEvent[] = [];
  const unparsable: WireLine[] = [];
  for (const line of wire) {
    if (line.text.trim() === "") continue;
    try {
      events.push({ direction: line.from === side ? "out" : "in", time: line.time, message: JSON.parse(line.text) });
    } catch {
      unparsable.push(line);
    }
  }
  return { events, unparsable };
}

/** Every schema violation among the messages `side` sent (`direction: "out"`), in order. */
export function checkSent(
  protocol: Protocol,
  events: readonly TapEvent[],
  side: Side,
): { violations: Violation[]; checked: number } {
  const peer: Side = side === "agent" ? "client" : "agent";
  const incoming = new Map<string, string>();
  const violations: Violation[] = [];
  let index = -1;
  const find = (method: string, kind: MethodInfo["kind"], handledBy: Side) =>
    protocol.methods.find(
      (m) =>
        m.method === method &&
        m.kind === kind &&
        (m.handledBy === handledBy || m.handledBy === "both" || m.handledBy === "protocol"),
    );
  const check = (def: string | undefined, value: unknown, what: string, message: unknown): void => {
    if (def === undefined) return;
    const validator = protocol.schemas[def];
    if (!validator) {
      violations.push({ side, index, what: `${what}: no validator for ${def}`, issues: [], preview: preview(message) });
      return;
    }
    const issues = validator.check(value);
    if (issues.length > 0)
      violations.push({
        side,
        index,
        what: `${what} (${def})`,
        issues: issues.map(formatIssue),
        preview: preview(message),
      });
  };

  for (const event of events) {
    if (!("message" in event)) continue;
    const message = event.message as Record<string, unknown> | null;
    const isObject = message !== null && typeof message === "object" && !Array.isArray(message);
    const method = isObject && typeof message.method === "string" ? message.method : undefined;
    const hasId = isObject && "id" in message;
    if (event.direction === "in") {
      if (method !== undefined && hasId) incoming.set(idKey(message!.id), method);
      continue;
    }
    index++;
    if (!isObject) {
      violations.push({ side, index, what: "not a JSON-RPC object", issues: [], preview: preview(message) });
      continue;
    }
    if (message.jsonrpc !== "2.0")
      violations.push({ side, index, what: 'jsonrpc is not "2.0"', issues: [], preview: preview(message) });
    if (method !== undefined) {
      const kind = hasId ? "request" : "notification";
      if (hasId) check("RequestId", message.id, `${method} request id`, message);
      const info = find(method, kind, peer);
      if (info === undefined) {
        if (!method.startsWith("_"))
          violations.push({
            side,
            index,
            what: `${kind} ${method}: not a ${peer}-side ${kind} of the protocol`,
            issues: [],
            preview: preview(message),
          });
        continue;
      }
      check(info.params, message.params ?? {}, `${kind} ${method} params`, message);
      continue;
    }
    if (!hasId) {
      violations.push({
        side,
        index,
        what: "neither a request, a notification nor a response",
        issues: [],
        preview: preview(message),
      });
      continue;
    }
    const answered = incoming.get(idKey(message.id));
    if ("result" in message === "error" in message) {
      violations.push({
        side,
        index,
        what: "a response must have exactly one of result and error",
        issues: [],
        preview: preview(message),
      });
      continue;
    }
    if ("error" in message) {
      check("Error", message.error, `error response${answered ? ` to ${answered}` : ""}`, message);
      continue;
    }
    if (answered === undefined) {
      violations.push({
        side,
        index,
        what: `result for id ${idKey(message.id)}, which no request carried`,
        issues: [],
        preview: preview(message),
      });
      continue;
    }
    const info = find(answered, "request", side);
    if (info !== undefined) check(info.result, message.result, `${answered} result`, message);
    else if (!answered.startsWith("_"))
      violations.push({
        side,
        index,
        what: `result for ${answered}, not a ${side}-side method`,
        issues: [],
        preview: preview(message),
      });
  }
  return { violations, checked: index + 1 };
}

export function formatViolations(violations: readonly Violation[]): string {
  return violations
    .map(
      (v) =>
        `#${v.index} from the ${v.side}: ` +
        `${v.what}${v.issues.length ? `\n    ${v.issues.join("\n    ")}` : ""}\n    ${v.preview}`,
    )
    .join("\n");
}

/** Differences between what a tap says a side sent and what the wire carried from it (first few). */
export function compareTapWithWire(tapped: readonly TapEvent[], wire: readonly WireLine[], side: Side): string[] {
  const fromTap = tapped.filter((e) => e.direction === "out" && "message" in e).map((e) => JSON.stringify(e.message));
  const fromWire = wireEvents(wire, side)
    .events.filter((e) => e.direction === "out")
    .map((e) => JSON.stringify(e.message));
  const problems: string[] = [];
  if (fromTap.length !== fromWire.length)
    problems.push(`the tap saw ${fromTap.length} outgoing messages, the wire carried ${fromWire.length}`);
  for (let i = 0; i < Math.min(fromTap.length, fromWire.length) && problems.length < 5; i++) {
    if (fromTap[i] !== fromWire[i])
      problems.push(`message #${i}: tap ${fromTap[i]!.slice(0, 160)} vs wire ${fromWire[i]!.slice(0, 160)}`);
  }
  return problems;
}

/** Tap events a fixture wrote to its ACP_TAP_FILE (one JSON line each). */
export function parseTapFile(text: string): TapEvent[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as TapEvent);
}

const V2_PROTOCOL_ENTRY = new URL("../../../../src/protocol/v2.js", import.meta.url).href;

/** acpkit's protocol v2 (draft) validators and method table, for checking v2 conversations. */
export async function loadV2Protocol(): Promise<Protocol> {
  const module = (await import(V2_PROTOCOL_ENTRY)) as {
    v2Schemas: Record<string, Validator>;
    METHOD_TABLE: MethodInfo[];
  };
  return { schemas: module.v2Schemas, methods: module.METHOD_TABLE };
}
