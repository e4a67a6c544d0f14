/**
 * The permission prompt: the agent's own options listed with keys (`1`..`9`, plus `y` allow once, `a` allow
 * always, `n` reject once, `r` reject always when offered), and the mapping from a key or a typed answer back to
 * an option. Pure.
 */
import type { PermissionOption, PermissionOptionKind, RequestPermissionRequest } from "@acpkit/sdk";
import type { ChatPainter } from "./paint.js";
import { sanitize, truncate } from "./text-layout.js";

const LETTERS: Partial<Record<PermissionOptionKind, string>> = {
  allow_once: "y",
  allow_always: "a",
  reject_once: "n",
  reject_always: "r",
};

/** The letter key of an option, if its kind has one and no earlier option of that kind took it. */
export function letterOf(options: readonly PermissionOption[], index: number): string | undefined {
  const option = options[index]!;
  const first = options.findIndex((candidate) => candidate.kind === option.kind);
  return first === index ? LETTERS[option.kind] : undefined;
}

/** Lines asking for a decision: the tool call's title and the options with their keys. */
export function renderPermission(
  request: RequestPermissionRequest,
  width: number,
  paint: ChatPainter,
  interactive: boolean,
): string[] {
  const title = sanitize(request.toolCall.title ?? request.toolCall.toolCallId);
  const kind = request.toolCall.kind ? ` [${request.toolCall.kind}]` : "";
  const out = [paint.yellow(paint.bold(truncate(`? Allow${kind} ${title}?`, width)))];
  request.options.forEach((option, index) => {
    const letter = letterOf(request.options, index);
    const keys = index < 9 ? `${index + 1}${letter ? `/${letter}` : ""}` : (letter ?? "");
    const name = option.kind.startsWith("allow")
      ? paint.green(sanitize(option.name))
      : paint.red(sanitize(option.name));
    out.push(`  ${paint.bold(keys.padEnd(3))} ${name} ${paint.dim(`(${option.kind.replace("_", " ")})`)}`);
  });
  out.push(
    paint.dim(
      interactive
        ? "  press a key · Esc or Ctrl-C cancels the turn"
        : "  answer with a number or an option name (empty line: reject)",
    ),
  );
  return out;
}

/**
 * The option a key press selects, `"cancel"` for Esc / Ctrl-C, or undefined for a key that means nothing here.
 * `key` is a readline keypress: `{ name, sequence, ctrl }`.
 */
export function optionForKey(
  options: readonly PermissionOption[],
  key: { name?: string; sequence?: string; ctrl?: boolean },
): string | "cancel" | undefined {
  if (key.name === "escape" || (key.ctrl && key.name === "c")) return "cancel";
  const char = key.sequence ?? key.name ?? "";
  if (/^[1-9]$/.test(char)) return options[Number(char) - 1]?.optionId;
  const index = options.findIndex((_, i) => letterOf(options, i) === char.toLowerCase());
  return index === -1 ? undefined : options[index]!.optionId;
}

/**
 * The option a typed answer selects: a number, a key letter, an option id or name (any case). An empty answer
 * selects the first reject option (fail closed); undefined when nothing matches.
 */
export function optionForAnswer(options: readonly PermissionOption[], answer: string): string | undefined {
  const text = answer.trim();
  if (text === "")
    return (
      options.find((option) => option.kind === "reject_once") ??
      options.find((option) => option.kind === "reject_always")
    )?.optionId;
  if (/^\d+$/.test(text)) return options[Number(text) - 1]?.optionId;
  const lower = text.toLowerCase();
  const byKey = optionForKey(options, { sequence: lower });
  if (byKey !== undefined && byKey !== "cancel" && lower.length === 1) return byKey;
  return options.find((option) => option.optionId.toLowerCase() === lower || option.name.toLowerCase() === lower)
    ?.optionId;
}
