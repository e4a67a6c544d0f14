/**
 * Compiles schema nodes into checker code. A compiled node is either an inline leaf expression or a generated
 * function `(v, m) => boolean` (see src/protocol/validator-kernel.ts for the protocol). Defs become `v_<Name>`;
 * anonymous structures become `n<k>`. Recursion is safe: a def's function name is reserved before its body is built.
 */
import { type Schema, assertionKeys, isAnything, nullableInner, soleRef, typeList } from "./schema.js";
import { literal } from "./text.js";
import { arrayBody, compositeBody } from "./validator-bodies.js";
import { type Leaf, leafOf, unionLeaf } from "./validator-leaf.js";

export interface Node {
  /** Expected-value description for error messages. */
  desc: string;
  /** A JS expression: true when valid; when false, issues are recorded. `x` must be a plain identifier. */
  call(x: string): string;
  /** Side-effect-free test, for leaves. */
  pure?: (x: string) => string;
  /** Always valid (`{}`). */
  anything?: boolean;
  /** The checker function's name, when the node is one. */
  fn?: string;
}

export const ANYTHING: Node = { desc: "any value", call: () => "true", pure: () => "true", anything: true };

export class Compiler {
  readonly functions: string[] = [];
  readonly constants: string[] = [];
  private readonly defNodes = new Map<string, Node>();
  private readonly inProgress = new Set<string>();
  private readonly wrappers = new Map<Node, string>();
  private readonly memo = new WeakMap<Schema, Node>();
  private readonly patternNames = new Map<string, string>();
  private readonly candidateNames = new Map<string, string>();
  private counter = 0;

  constructor(readonly defs: Record<string, Schema>) {}

  /** The node for a def, compiling it (and emitting `v_<name>`) on first use. */
  def(name: string): Node {
    const known = this.defNodes.get(name);
    if (known) return known;
    const fn = `v_${name}`;
    if (this.inProgress.has(name)) return fnNode(fn, "object");
    const schema = this.defs[name];
    if (!schema) throw new Error(`$ref to unknown def ${name}`);
    this.inProgress.add(name);
    const node = this.node(schema, name, fn);
    this.inProgress.delete(name);
    this.defNodes.set(name, node);
    if (node.fn !== fn)
      this.functions.push(`function ${fn}(v: any, m: number): boolean {\n  return ${node.call("v")};\n}\n`);
    return node;
  }

  /** Compiles any schema node. `where` names it in generator errors; `fnName` is used if a function is needed. */
  node(s: Schema, where: string, fnName?: string): Node {
    const known = this.memo.get(s);
    if (known) return known;
    const node = this.build(s, where, fnName);
    this.memo.set(s, node);
    return node;
  }

  private build(s: Schema, where: string, fnName?: string): Node {
    if (isAnything(s)) return ANYTHING;
    const ref = soleRef(s);
    if (ref) return this.def(ref);
    const inner = nullableInner(s);
    if (inner) return nullable(this.node(inner, `${where}/nonnull`));
    const leaf = leafOf(s, (p) => this.pattern(p));
    if (leaf) return leafNode(leaf);
    const union = s.anyOf ?? s.oneOf;
    if (union && assertionKeys(s).length === 1 && union.every((v) => this.isLeafish(v, new Set()))) {
      const nodes = union.map((v, i) => this.node(v, `${where}/${i}`));
      if (s.oneOf)
        assertDisjoint(
          union.map((v) => this.resolveRefs(v)),
          where,
        );
      if (nodes.some((n) => n.anything)) return ANYTHING;
      return leafNode(
        unionLeaf(
          nodes.map((n) => ({ desc: n.desc, pure: n.pure! })),
          union,
        ),
      );
    }
    return this.functionNode(s, where, fnName);
  }

  private functionNode(s: Schema, where: string, fnName?: string): Node {
    const name = fnName ?? `n${++this.counter}`;
    const slot = this.functions.length;
    this.functions.push("");
    const types = typeList(s);
    const isArray = types.includes("array") && !types.includes("object");
    const body = isArray ? arrayBody(this, s, where) : compositeBody(this, s, where);
    this.functions[slot] = `function ${name}(v: any, m: number): boolean {\n${body}}\n`;
    const desc = isArray
      ? types.includes("null")
        ? "array | null"
        : "array"
      : types.includes("null")
        ? "object | null"
        : "object";
    return fnNode(name, desc);
  }

  /** Whether a schema compiles to an inline leaf, decided without emitting anything. */
  private isLeafish(s: Schema, seen: Set<string>): boolean {
    if (isAnything(s)) return true;
    const ref = soleRef(s);
    if (ref) return !seen.has(ref) && this.isLeafish(this.defs[ref]!, seen.add(ref));
    const inner = nullableInner(s);
    if (inner) return this.isLeafish(inner, seen);
    if (leafOf(s, () => "re")) return true;
    const union = s.anyOf ?? s.oneOf;
    return Boolean(union && assertionKeys(s).length === 1 && union.every((v) => this.isLeafish(v, seen)));
  }

  /** The keys a schema requires, through `$ref`s and `allOf` members. */
  requiredKeys(s: Schema): string[] {
    const resolved = this.resolveRefs(s);
    return [...(resolved.required ?? []), ...(resolved.allOf ?? []).flatMap((member) => this.requiredKeys(member))];
  }

  private resolveRefs(s: Schema): Schema {
    const ref = soleRef(s);
    return ref ? this.resolveRefs(this.defs[ref]!) : s;
  }

  /** A function name for any node (wrapping leaves), for candidate lists and guards. */
  fnOf(node: Node): string {
    if (node.fn) return node.fn;
    const known = this.wrappers.get(node);
    if (known) return known;
    const name = `n${++this.counter}`;
    this.wrappers.set(node, name);
    this.functions.push(`function ${name}(v: any, m: number): boolean {\n  return ${node.call("v")};\n}\n`);
    return name;
  }

  /** A module-level constant holding a list of checkers (for untagged unions). */
  candidates(fns: string[]): string {
    const key = fns.join(",");
    const known = this.candidateNames.get(key);
    if (known) return known;
    const name = `c${this.candidateNames.size + 1}`;
    this.candidateNames.set(key, name);
    this.constants.push(`const ${name}: readonly Checker[] = [${fns.join(", ")}];`);
    return name;
  }

  private pattern(source: string): string {
    const known = this.patternNames.get(source);
    if (known) return known;
    new RegExp(source, "u"); // fail generation on a pattern JavaScript cannot compile
    const name = `re${this.patternNames.size + 1}`;
    this.patternNames.set(source, name);
    this.constants.push(`const ${name} = new RegExp(${literal(source)}, "u");`);
    return name;
  }
}

export function fnNode(fn: string, desc: string): Node {
  return { desc, fn, call: (x) => `${fn}(${x}, m)` };
}

function leafNode(leaf: Leaf): Node {
  const desc = literal(leaf.desc);
  return { desc: leaf.desc, pure: leaf.pure, call: (x) => `(${leaf.pure(x)} || I(${desc}, ${x}))` };
}

function nullable(inner: Node): Node {
  if (inner.anything) return ANYTHING;
  if (inner.pure) return leafNode({ desc: `${inner.desc} | null`, pure: (x) => `${x} === null || ${inner.pure!(x)}` });
  return { desc: `${inner.desc} | null`, call: (x) => `(${x} === null || ${inner.call(x)})` };
}

/**
 * `oneOf` means exactly one: a leaf union compiled as "any of" is only faithful when no value can match two variants.
 * Consts must differ; other variants must not share a JSON type (integer counts as number).
 */
function assertDisjoint(variants: Schema[], where: string): void {
  const kinds = variants.map((v) => {
    if (v.const !== undefined) return { consts: [v.const] };
    if (v.enum) return { consts: v.enum };
    return { types: new Set(typeList(v).map((t) => (t === "integer" ? "number" : t))) };
  });
  for (let i = 0; i < kinds.length; i++) {
    for (let j = i + 1; j < kinds.length; j++) {
      const a = kinds[i]!;
      const b = kinds[j]!;
      const overlap =
        a.consts && b.consts
          ? a.consts.some((c) => b.consts!.includes(c))
          : a.types && b.types
            ? [...a.types].some((t) => b.types!.has(t)) || a.types.size === 0 || b.types.size === 0
            : true; // a const next to a typed variant: the const may match it
      if (overlap) throw new Error(`${where}: oneOf variants ${i} and ${j} can match the same value`);
    }
  }
}
