/**
 * `schema`: every message a side sends matches the ACP JSON Schema, strictly (what a side sends must be valid; only
 * reading is lenient). Requests and notifications are checked against their params def, responses against the
 * result def of the request they answer, error responses against `Error`. The defs come from the method table.
 * A message that is valid only under the unstable schema is a warning when checking against the stable one.
 */
import type { CompiledSchema } from "../../protocol/index.js";
import type { WireEvent } from "../events.js";
import { SPEC, type Rule, type RuleContext } from "./types.js";
import { The } from "./describe.js";

export const schemaRule: Rule = {
  id: "schema",
  spec: `${SPEC}/schema`,
  description: "Every message matches the ACP JSON Schema (params, results and errors), checked strictly",
  severity: "error",
  judges: ["agent", "client"],
  versions: [1, 2],
  create(context) {
    return {
      onEvent(event) {
        if (event.type === "request" || event.type === "notification") {
          const entry = event.entry;
          if (!entry || entry.kind !== event.type || entry.handledBy === event.from) return;
          check(
            context,
            event,
            entry.params,
            event.params ?? {},
            "$.params",
            entry.stability === "unstable",
            `${event.method} ${event.type === "request" ? "request" : "notification"}`,
          );
        } else if (event.type === "response" && event.entry) {
          const unstable = event.entry.stability === "unstable";
          if (event.error !== undefined)
            check(context, event, "Error", event.error, "$.error", unstable, `error answering ${event.method}`);
          else if (event.entry.result)
            check(context, event, event.entry.result, event.result, "$.result", unstable, `result of ${event.method}`);
        }
      },
    };
  },
};

function check(
  context: RuleContext,
  event: WireEvent,
  def: string,
  value: unknown,
  prefix: string,
  unstableMethod: boolean,
  subject: string,
): void {
  const own = context.conversation.flavor.schemas[def] as CompiledSchema<unknown> | undefined;
  const fallback = context.conversation.fallbackFlavor.schemas[def] as CompiledSchema<unknown> | undefined;
  const schema = unstableMethod || own === undefined ? fallback : own;
  if (!schema || schema.is(value)) return;
  const issues = schema.check(value);
  const first = issues[0];
  if (!first) return;
  const path = prefix + first.path.slice(1);
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})` : "";
  const detail = `at ${path} expected ${first.expected}, received ${first.received}${more}`;
  if (schema !== fallback && fallback?.is(value)) {
    context.report({
      side: event.from,
      severity: "warning",
      event,
      path,
      message:
        `${The(event.from)} sent a ${subject} that is valid only under the unstable schema (${detail}); a peer ` +
        `that speaks stable ACP may reject it.`,
    });
    return;
  }
  context.report({
    side: event.from,
    event,
    path,
    message:
      `${The(event.from)} sent an invalid ${subject}: ${detail}. What a side sends MUST match the ACP schema ` +
      `(${def}).`,
  });
}
