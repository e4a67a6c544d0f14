/**
 * Renders an agent plan as a checklist: `[x]` done, `[>]` in progress, `[ ]` pending; high priority in bold.
 */
import type { PlanEntry } from "@acpkit/sdk";
import type { ChatPainter } from "./paint.js";
import { indent, sanitize, wrapText } from "./text-layout.js";

/** Lines of a plan checklist, with a "Plan" title and a done/total count. */
export function renderPlan(entries: readonly PlanEntry[], width: number, paint: ChatPainter): string[] {
  const done = entries.filter((entry) => entry.status === "completed").length;
  const out = [`${paint.bold("Plan")} ${paint.dim(`${done}/${entries.length}`)}`];
  for (const entry of entries) {
    const box =
      entry.status === "completed" ? paint.green("[x]") : entry.status === "in_progress" ? paint.yellow("[>]") : "[ ]";
    const style = entry.status === "completed" ? paint.dim : entry.priority === "high" ? paint.bold : undefined;
    out.push(...indent(wrapText(sanitize(entry.content), width - 6, style), `  ${box} `, "      "));
  }
  return out;
}
