/**
 * Finding a row of the report (workload, transport, implementation), its median repetition, and why it has none.
 */
import type { RepResult, Transport } from "./harness.js";
import type { ImplName } from "./impls/types.js";
import type { Row } from "./report.js";
import type { WorkloadId } from "./workloads.js";

export function rowOf(rows: readonly Row[], w: WorkloadId, t: Transport, impl: ImplName): Row | undefined {
  return rows.find((r) => r.workload === w && r.transport === t && r.impl === impl);
}

/** The row's median repetition (what the tables show), if it has one. */
export function find(rows: readonly Row[], w: WorkloadId, t: Transport, impl: ImplName): RepResult | undefined {
  return rowOf(rows, w, t, impl)?.median;
}

/** Why the row has no median: not run, or its first error's first line; undefined when it has one. */
export function errorOf(rows: readonly Row[], w: WorkloadId, t: Transport, impl: ImplName): string | undefined {
  const row = rowOf(rows, w, t, impl);
  if (!row) return "not run";
  if (row.median) return undefined;
  return row.errors[0]?.split("\n")[0] ?? "no result";
}
