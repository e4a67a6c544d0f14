/**
 * Function bodies for structured schemas: objects (properties with their leniency annotations, required keys,
 * additionalProperties, allOf members, unions, not) and arrays (items, skip-invalid-items, counts).
 * Variables in scope of every body: `v` (the value), `m` (the mode), `s` (issue-stack height at entry), `x` (the
 * current property value).
 */
import { type Schema, nullableInner, typeList } from "./schema.js";
import { access, literal } from "./text.js";
import { type Compiler, ANYTHING, type Node } from "./validator-compiler.js";
import { unionCode } from "./validator-union.js";

export function compositeBody(c: Compiler, s: Schema, where: string): string {
  const types = typeList(s);
  for (const t of types)
    if (t !== "object" && t !== "null") throw new Error(`${where}: cannot mix type ${t} with object keywords`);
  if (s.unevaluatedProperties !== undefined && s.unevaluatedProperties !== true) {
    throw new Error(`${where}: only "unevaluatedProperties: true" is supported`);
  }
  const union = s.anyOf ?? s.oneOf;
  const lines: string[] = [];
  const desc = types.includes("null") ? "object | null" : "object";
  if (types.includes("null")) lines.push("  if (v === null) return true;");
  const isObject = types.includes("object") || s.properties || s.required || s.additionalProperties !== undefined;
  if (isObject) lines.push(`  if (!O(v)) return I(${literal(desc)}, v);`);
  lines.push("  const s = E.length;");
  const props = Object.entries(s.properties ?? {});
  if (props.length) lines.push("  let x: any;");
  const required = new Set(s.required ?? []);
  for (const [key, prop] of props)
    lines.push(...propertyCode(c, key, prop, required.has(key), `${where}/properties/${key}`));
  for (const key of required) {
    if (s.properties?.[key]) continue;
    lines.push(`  if (${access("v", key)} === undefined && M(m, s, "a value", ${literal(key)})) return false;`);
  }
  lines.push(...additionalCode(c, s, where));
  for (const [i, member] of (s.allOf ?? []).entries()) {
    const node = c.node(member, `${where}/allOf/${i}`);
    if (!node.anything) lines.push(`  if (!${node.call("v")} && Y(m, s)) return false;`);
  }
  if (union) lines.push(...unionCode(c, union, Boolean(s.oneOf), Boolean(isObject), where));
  if (s.not) {
    const node = c.node(s.not, `${where}/not`);
    const test = node.pure ? `(${node.pure("v")})` : `T(${c.fnOf(node)}, v)`;
    lines.push(`  if (${test}) { I(${literal(`not ${node.desc}`)}, v); if (Y(m, s)) return false; }`);
  }
  lines.push("  return Z(s);");
  return `${lines.join("\n")}\n`;
}

/** One property: presence, default filling, the check, and `x-deserialize-default-on-error` repair. */
function propertyCode(c: Compiler, key: string, prop: Schema, required: boolean, where: string): string[] {
  const node = c.node(prop, where);
  const acc = access("v", key);
  const k = literal(key);
  const doe = prop["x-deserialize-default-on-error"] === true;
  let missing: string | undefined;
  if (required) missing = `{ if (M(m, s, ${literal(node.desc)}, ${k})) return false; }`;
  else if (prop.default !== undefined) missing = `{ if (m === 0) ${acc} = ${literal(prop.default)}; }`;
  if (node.anything) return missing ? [`  if (${acc} === undefined) ${missing}`] : [];
  const lines = [`  x = ${acc};`];
  // `x-deserialize-default-on-null` (serde_with's DefaultOnNull): lenient modes read an explicit null as the empty
  // value (PARSE writes it); strict modes check null like any other value, so what we send stays exact.
  const onNull =
    prop["x-deserialize-default-on-null"] === true
      ? `  if (x === null && m < 2) { if (m === 0) ${acc} = ${emptyOf(prop)}; } else `
      : "";
  const fail = doe ? `{ if (R(m, s, ${k})) return false; if (m === 0) ${repair(prop, acc, required, where)}; }` : "";
  if (missing) {
    lines.push(`${onNull || "  "}if (x === undefined) ${missing}`);
    lines.push(
      doe ? `  else if (!${node.call("x")}) ${fail}` : `  else if (!${node.call("x")} && X(m, s, ${k})) return false;`,
    );
  } else {
    lines.push(
      (onNull || "  ") +
        (doe
          ? `if (x !== undefined && !${node.call("x")}) ${fail}`
          : `if (x !== undefined && !${node.call("x")} && X(m, s, ${k})) return false;`),
    );
  }
  return lines;
}

/**
 * What an invalid `x-deserialize-default-on-error` value becomes, mirroring serde's `Default` in the reference Rust
 * implementation (and the official SDK): the schema's default if it gives one; removal for a nullable property (an
 * `Option`); the empty value for a non-nullable array or object (`Vec`, `HashMap`); otherwise removal, unless the
 * property is required, which the generator refuses (no empty value to use).
 */
function repair(prop: Schema, acc: string, required: boolean, where: string): string {
  if (prop.default !== undefined) return `${acc} = ${literal(prop.default)}`;
  const types = typeList(prop);
  const nullable = types.includes("null") || nullableInner(prop) !== undefined;
  if (!nullable && types.includes("array")) return `${acc} = []`;
  if (!nullable && types.includes("object")) return `${acc} = {}`;
  if (!required) return `delete ${acc}`;
  throw new Error(`${where}: required default-on-error property without a default or a natural empty value`);
}

/** The empty value of an array or object property (what serde's `Default` gives a `Vec` or a map). */
function emptyOf(prop: Schema): string {
  return typeList(prop).includes("array") ? "[]" : "{}";
}

function additionalCode(c: Compiler, s: Schema, where: string): string[] {
  const ap = s.additionalProperties;
  const known = Object.keys(s.properties ?? {});
  const skipKnown = known.length ? `if (${known.map((k) => `k === ${literal(k)}`).join(" || ")}) continue; ` : "";
  if (ap === false) {
    return [
      `  for (const k of Object.keys(v)) { ${skipKnown}K("no additional property", v[k], k); if (Y(m, s)) ` +
        `return false; }`,
    ];
  }
  if (typeof ap !== "object") return [];
  const node = c.node(ap, `${where}/additionalProperties`);
  if (node.anything) return [];
  return [
    `  for (const k of Object.keys(v)) { ${skipKnown}const y = v[k]; if (!${node.call("y")} && X(m, s, k)) ` +
      `return false; }`,
  ];
}

export function arrayBody(c: Compiler, s: Schema, where: string): string {
  const types = typeList(s);
  for (const t of types)
    if (t !== "array" && t !== "null") throw new Error(`${where}: cannot mix type ${t} with array keywords`);
  const nullable = types.includes("null");
  const skip = s["x-deserialize-skip-invalid-items"] === true;
  const item: Node = s.items ? c.node(s.items, `${where}/items`) : ANYTHING;
  const lines: string[] = [];
  if (nullable) lines.push("  if (v === null) return true;");
  lines.push(`  if (!Array.isArray(v)) return I(${literal(nullable ? "array | null" : "array")}, v);`);
  lines.push("  const s = E.length;");
  const counted = skip && !item.anything;
  if (!item.anything && !skip) {
    lines.push(
      `  for (let i = 0; i < v.length; i++) { const y = v[i]; if (!${item.call("y")} && X(m, s, i)) return false; }`,
    );
  } else if (counted) {
    lines.push(
      "  let j = 0;",
      "  for (let i = 0; i < v.length; i++) {",
      "    const y = v[i];",
      `    if (${item.call("y")}) { if (m === 0 && j !== i) v[j] = y; j++; }`,
      "    else if (m < 2) D();",
      "    else if (X(m, s, i)) return false;",
      "  }",
      "  if (m === 0 && j !== v.length) v.length = j;",
    );
  }
  if (s.minItems !== undefined || s.maxItems !== undefined) {
    lines.push(`  const n = ${counted ? "m < 2 ? j : v.length" : "v.length"};`);
    if (s.minItems !== undefined) {
      lines.push(
        `  if (n < ${s.minItems}) { I(${literal(`array with at least ${s.minItems} items`)}, v); if (Y(m, s)) ` +
          `return false; }`,
      );
    }
    if (s.maxItems !== undefined) {
      lines.push(
        `  if (n > ${s.maxItems}) { I(${literal(`array with at most ${s.maxItems} items`)}, v); if (Y(m, s)) ` +
          `return false; }`,
      );
    }
  }
  lines.push("  return Z(s);");
  return `${lines.join("\n")}\n`;
}
