/**
 * Emits one TypeScript type per `$defs` entry, in the style of the official SDK's generated types: optional
 * properties with `?:`, nullable as `| null`, tagged variants as intersections (`(ContentChunk & { sessionUpdate:
 * "agent_message_chunk" })`), open objects with an index signature, descriptions as doc comments.
 */
import { type LoadedSchema, type Schema, isAnything, nullableInner, soleRef, typeList } from "./schema.js";
import { docComment, header, literal, propKey } from "./text.js";

const STEP = "    ";

export function emitTypes(schema: LoadedSchema, what: string): string {
  const out = [header([schema], what)];
  for (const [name, def] of Object.entries(schema.defs)) {
    out.push(`${docComment(def.description)}export type ${name} = ${typeExpr(def, "")};\n`);
  }
  return out.join("\n");
}

/** The TypeScript type for a schema node; `indent` is the indentation of the line the expression starts on. */
export function typeExpr(s: Schema, indent: string, prefix = ""): string {
  const ref = soleRef(s);
  if (ref) return prefix + ref;
  if (isAnything(s)) return "unknown";
  if (s.const !== undefined) return literal(s.const);
  if (s.enum) return dedupe(s.enum.map(literal)).join(" | ");
  const parts: string[] = [];
  for (const member of s.allOf ?? []) parts.push(typeExpr(member, indent, prefix));
  const union = s.anyOf ?? s.oneOf;
  if (union) parts.push(unionExpr(s, union, indent, prefix));
  const own = ownExpr(s, indent, prefix);
  if (own) parts.push(own);
  if (parts.length === 0) return "unknown";
  return parts.length === 1 ? parts[0]! : parts.map(wrapForIntersection).join(" & ");
}

function unionExpr(s: Schema, variants: Schema[], indent: string, prefix: string): string {
  const inner = nullableInner({ anyOf: variants });
  if (inner && !s.type && !s.properties) return `${typeExpr(inner, indent, prefix)} | null`;
  return dedupe(variants.map((v) => wrapForUnion(typeExpr(v, indent, prefix)))).join(" | ");
}

/** The type contributed by `type`, `properties`, `items`, `additionalProperties` of this node itself. */
function ownExpr(s: Schema, indent: string, prefix: string): string | undefined {
  const types = typeList(s);
  const objectish = s.properties !== undefined || s.additionalProperties !== undefined;
  if (types.length === 0) return objectish ? objectLiteral(s, indent, prefix) : undefined;
  if (types.length === 1 && types[0] === "object" && (s.allOf || s.anyOf || s.oneOf) && !objectish) return undefined;
  return dedupe(types.map((t) => primitive(t, s, indent, prefix))).join(" | ");
}

function primitive(t: string, s: Schema, indent: string, prefix: string): string {
  switch (t) {
    case "null":
      return "null";
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "array":
      return `Array<${s.items ? typeExpr(s.items, indent, prefix) : "unknown"}>`;
    case "object":
      return objectLiteral(s, indent, prefix);
    default:
      throw new Error(`unknown JSON type ${t}`);
  }
}

function objectLiteral(s: Schema, indent: string, prefix: string): string {
  const inner = indent + STEP;
  const required = new Set(s.required ?? []);
  const lines: string[] = [];
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    const optional = required.has(key) ? "" : "?";
    lines.push(
      `${docComment(prop.description, inner)}${inner}${propKey(key)}${optional}: ${typeExpr(prop, inner, prefix)};`,
    );
  }
  const extra = s.additionalProperties ?? s.unevaluatedProperties;
  if (typeof extra === "object") {
    lines.push(`${inner}[key: string]: ${typeExpr(extra, inner, prefix)};`);
  } else if (extra === true || (extra === undefined && lines.length === 0)) {
    lines.push(`${inner}[key: string]: unknown;`);
  }
  return `{\n${lines.join("\n")}\n${indent}}`;
}

function wrapForUnion(t: string): string {
  return topLevel(t, "&") ? `(${t})` : t;
}

function wrapForIntersection(t: string): string {
  return topLevel(t, "|") ? `(${t})` : t;
}

/** Whether `op` occurs outside all brackets in a type expression. */
function topLevel(t: string, op: string): boolean {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < t.length; i++) {
    const c = t[i]!;
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === "/" && t[i + 1] === "*") {
      const end = t.indexOf("*/", i + 2);
      i = end < 0 ? t.length : end + 1;
    } else if (c === '"') quoted = true;
    else if (c === "(" || c === "{" || c === "<" || c === "[") depth++;
    else if (c === ")" || c === "}" || c === ">" || c === "]") depth--;
    else if (depth === 0 && c === op) return true;
  }
  return false;
}

function dedupe(xs: string[]): string[] {
  return [...new Set(xs)];
}
