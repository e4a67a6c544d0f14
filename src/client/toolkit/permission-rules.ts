/**
 * Rule-based permission policies: match a request by tool kind, title and paths; first matching rule decides.
 */
import type { RequestPermissionRequest, ToolKind } from "../../protocol/index.js";
import { decide, type PermissionPolicy } from "./permission-policy.js";

/** One rule. Every criterion given must match (an empty rule matches everything). */
export interface PermissionRule {
  /** The tool call's kind (a request without one has kind `other`), or any of several. */
  kind?: ToolKind | readonly ToolKind[];
  /** A string matches titles containing it (case-insensitive); a RegExp is tested against the title. */
  title?: string | RegExp;
  /**
   * A glob (`*` within a path segment, `**` across segments, `?` one character) or, without glob characters, a
   * directory prefix (`/work/app` matches `/work/app` and `/work/app/x`, not `/work/apple`), or several.
   * Matched against the request's paths (see `requestPaths`), normalized (`.`/`..` resolved, `\` read as `/`).
   * An `allow` rule matches only when there is at least one path and every path matches (a call touching one path
   * outside is not allowed by it); a `reject` or `ask` rule matches when any path matches.
   */
  path?: string | readonly string[];
  /** What a match means. `ask` hands the request to `options.ask` (default: the fallback). */
  decision: "allow" | "reject" | "ask";
}

/** Options of `rules`. */
export interface RulesOptions {
  /** The policy `ask` rules hand requests to (default: the fallback). */
  ask?: PermissionPolicy;
}

/**
 * Decides by the first matching rule: `allow` and `reject` map onto the agent's options with `decide`; `ask` and no
 * match hand the request on (`options.ask` or `fallback`).
 */
export function rules(
  list: readonly PermissionRule[],
  fallback: PermissionPolicy,
  options: RulesOptions = {},
): PermissionPolicy {
  const compiled = list.map(compileRule);
  return async (request, context) => {
    const paths = requestPaths(request);
    const rule = compiled.find((candidate) => candidate.matches(request, paths));
    if (rule === undefined) return fallback(request, context);
    if (rule.decision === "ask") return (options.ask ?? fallback)(request, context);
    return decide(request, rule.decision);
  };
}

interface CompiledRule {
  decision: PermissionRule["decision"];
  matches(request: RequestPermissionRequest, paths: readonly string[]): boolean;
}

function compileRule(rule: PermissionRule): CompiledRule {
  const kinds = rule.kind === undefined ? undefined : typeof rule.kind === "string" ? [rule.kind] : rule.kind;
  const title = rule.title;
  const patterns =
    rule.path === undefined ? undefined : (typeof rule.path === "string" ? [rule.path] : rule.path).map(pathMatcher);
  return {
    decision: rule.decision,
    matches(request, paths) {
      if (kinds !== undefined && !kinds.includes(request.toolCall.kind ?? "other")) return false;
      if (title !== undefined) {
        const text = request.toolCall.title ?? "";
        if (typeof title === "string" ? !text.toLowerCase().includes(title.toLowerCase()) : !testRegExp(title, text))
          return false;
      }
      if (patterns === undefined) return true;
      const inside = (path: string) => patterns.some((matches) => matches(path));
      return rule.decision === "allow" ? paths.length > 0 && paths.every(inside) : paths.some(inside);
    },
  };
}

function testRegExp(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0; // a global or sticky RegExp keeps state between tests
  return pattern.test(text);
}

/**
 * rawInput keys read as paths: `path`, `paths`, `file`, `filename`, `cwd`, `dir`, `directory`, and `*_path`/`*Path`(s).
 */
const PATH_KEY = /^(path|paths|file|files|filename|cwd|dir|directory|destination|source)$|_path(s)?$|Path(s)?$/;

/**
 * The paths a request touches: `toolCall.locations[].path`, plus strings (or arrays of strings) under path-like keys
 * of `toolCall.rawInput` (top level only; see `PATH_KEY`). Normalized, duplicates removed.
 */
export function requestPaths(request: RequestPermissionRequest): string[] {
  const found = new Set<string>();
  for (const location of request.toolCall.locations ?? [])
    if (typeof location.path === "string") found.add(normalizePath(location.path));
  const raw = request.toolCall.rawInput;
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    for (const [key, value] of Object.entries(raw)) {
      if (!PATH_KEY.test(key)) continue;
      for (const item of Array.isArray(value) ? value : [value])
        if (typeof item === "string" && item !== "") found.add(normalizePath(item));
    }
  }
  return [...found];
}

/** `\` as `/`, repeated slashes collapsed, `.` and `..` segments resolved (never above the root), no trailing slash. */
export function normalizePath(path: string): string {
  const slashed = path.replace(/\\/g, "/");
  const absolute = slashed.startsWith("/");
  const out: string[] = [];
  for (const segment of slashed.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
    } else out.push(segment);
  }
  const joined = out.join("/");
  return absolute ? `/${joined}` : joined === "" ? "." : joined;
}

/** A matcher for one `path` pattern: a glob when it has `*`, `?` or `[`, else a directory prefix. */
export function pathMatcher(pattern: string): (path: string) => boolean {
  if (!/[*?[]/.test(pattern)) {
    const prefix = normalizePath(pattern);
    const base = prefix.endsWith("/") ? prefix : `${prefix}/`;
    return (path) => path === prefix || path.startsWith(base);
  }
  const regex = globToRegExp(pattern.replace(/\\/g, "/"));
  return (path) => regex.test(path);
}

/**
 * Compiles a glob: `**` any run of characters (across `/`), `**` then `/` zero or more whole segments, `*` any run
 * within a segment, `?` one character, `[abc]` / `[!abc]` a character class; everything else literal.
 */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === "*" && glob[i + 1] === "*") {
      if (glob[i + 2] === "/") {
        source += "(?:.*/)?";
        i += 2;
      } else {
        source += ".*";
        i += 1;
      }
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else if (char === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end === -1) source += "\\[";
      else {
        const body = glob.slice(i + 1, end).replace(/\\/g, "\\\\");
        source += `[${body.startsWith("!") ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else source += char.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}
