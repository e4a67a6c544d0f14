/**
 * Union code inside a checker body. Tagged unions become a `switch` on the tag (no variant is tried in vain);
 * untagged fallbacks and untagged unions go through the kernel's `U`, which tries strictly first so a valid value is
 * never mutated. A tag that matches no variant: with a catch-all or untagged fallback, that fallback's rules apply in
 * every mode; without one, lenient modes accept the value untouched (a newer peer's new variant must reach the
 * application) and strict modes report "expected one of ...".
 */
import { type Schema } from "./schema.js";
import { access, literal } from "./text.js";
import type { Compiler, Node } from "./validator-compiler.js";
import { type TaggedUnion, analyzeTaggedUnion } from "./unions.js";

export function unionCode(
  c: Compiler,
  variants: Schema[],
  exclusive: boolean,
  objectChecked: boolean,
  where: string,
): string[] {
  const tagged = analyzeTaggedUnion(variants, where, exclusive);
  if (!tagged) {
    if (exclusive && variants.length > 1) {
      const keys = distinguishingKeys(c, variants);
      if (!keys)
        throw new Error(
          `${where}: oneOf without a discriminating tag or required keys cannot be checked deterministically`,
        );
      return byRequiredKeys(c, variants, keys, objectChecked, where);
    }
    return check(
      c,
      variants.map((v, i) => c.node(v, `${where}/${i}`)),
      "  ",
    );
  }
  const lines: string[] = [];
  if (!objectChecked) lines.push('  if (!O(v)) return I("object", v);');
  lines.push(...switchCode(c, tagged, where));
  return lines;
}

function switchCode(c: Compiler, u: TaggedUnion, where: string): string[] {
  const tagAcc = access("v", u.tag);
  const tagLit = literal(u.tag);
  const untagged = u.untagged.map((v, i) => c.node(v.schema, `${where}/untagged${i}`));
  const groups = new Map<string, string[]>();
  for (const v of u.variants) {
    if (v.kind !== "tagged") continue;
    const code = check(c, [c.node(v.schema, `${where}/${v.tag}`), ...untagged], "      ").join("\n");
    groups.set(code, [...(groups.get(code) ?? []), v.tag]);
  }
  const lines = [`  switch (${tagAcc}) {`];
  for (const [code, tags] of groups) {
    lines.push(`    ${tags.map((t) => `case ${literal(t)}:`).join(" ")} {`);
    if (code) lines.push(code);
    lines.push("      break;", "    }");
  }
  lines.push("    default: {");
  if (u.other || untagged.length) {
    const withOther = u.other ? [c.node(u.other.schema, `${where}/other`), ...untagged] : untagged;
    const onString = check(c, withOther, "        ");
    const onOther = untagged.length
      ? check(c, untagged, "        ")
      : [`        K("string", ${tagAcc}, ${tagLit}); if (Y(m, s)) return false;`];
    if (u.other) {
      lines.push(`      if (typeof ${tagAcc} === "string") {`, ...onString, "      } else {", ...onOther, "      }");
    } else {
      lines.push(...onString.map((l) => l.slice(2)));
    }
  } else {
    const expected = `one of ${u.knownTags.map((t) => literal(t)).join(", ")}`;
    lines.push(
      `      const t = ${tagAcc};`,
      `      if (typeof t !== "string" || m >= 2) { K(${literal(expected)}, t, ${tagLit}); if (Y(m, s)) ` +
        `return false; }`,
    );
  }
  lines.push("    }", "  }");
  return lines;
}

/** Statements requiring `v` to pass one of `nodes` (none when one of them accepts anything). */
function check(c: Compiler, nodes: Node[], indent: string): string[] {
  if (nodes.some((n) => n.anything)) return [];
  if (nodes.length === 1) return [`${indent}if (!${nodes[0]!.call("v")} && Y(m, s)) return false;`];
  const desc = [...new Set(nodes.map((n) => n.desc))].join(" | ");
  const list = c.candidates(nodes.map((n) => c.fnOf(n)));
  return [`${indent}if (!U(v, m, ${list}, ${literal(desc)}) && Y(m, s)) return false;`];
}

/**
 * For a `oneOf` without a tag whose variants each require keys no other variant requires (v2's elicitation scopes:
 * `sessionId` or `requestId`): the variant is chosen by which of those keys are present (not undefined), exactly one
 * must be, and the value is then checked against that variant alone. The official SDK decides the same way.
 */
function distinguishingKeys(c: Compiler, variants: Schema[]): string[][] | undefined {
  const required = variants.map((v) => new Set(c.requiredKeys(v)));
  const own = required.map((keys, i) =>
    [...keys].filter((k) => required.every((other, j) => j === i || !other.has(k))),
  );
  return own.every((k) => k.length > 0) ? own : undefined;
}

function byRequiredKeys(
  c: Compiler,
  variants: Schema[],
  keys: string[][],
  objectChecked: boolean,
  where: string,
): string[] {
  const nodes = variants.map((v, i) => c.node(v, `${where}/${i}`));
  const has = (k: string) => `${access("v", k)} !== undefined`;
  const expected = `exactly one of ${keys.map((ks) => ks.map((k) => `\`${k}\``).join(" + ")).join(" or ")}`;
  const lines: string[] = [];
  if (!objectChecked) lines.push('  if (!O(v)) return I("object", v);');
  lines.push(`  const h = [${keys.map((ks) => ks.map(has).join(" && ")).join(", ")}];`);
  lines.push(`  const n = h.filter(Boolean).length;`);
  lines.push(`  if (n !== 1) { I(${literal(expected)}, v); if (Y(m, s)) return false; }`);
  nodes.forEach((node, i) => {
    lines.push(`  else if (h[${i}]) { if (!${node.call("v")} && Y(m, s)) return false; }`);
  });
  return lines;
}
