/**
 * Small statistics and formatting helpers for the benchmark (no I/O).
 */

/** Value at quantile `q` (0..1) of `values`, nearest-rank on a sorted copy. NaN when empty. */
export function quantile(values: ArrayLike<number>, q: number): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  const rank = Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1));
  return sorted[rank]!;
}

export function median(values: ArrayLike<number>): number {
  return quantile(values, 0.5);
}

/** Median and p99 of a latency sample, in the sample's unit. */
export function latencySummary(values: ArrayLike<number>): { median: number; p99: number } {
  if (values.length === 0) return { median: Number.NaN, p99: Number.NaN };
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return { median: at(0.5), p99: at(0.99) };
}

/** Gaps between consecutive timestamps (same unit as the input). The first arrival has no gap. */
export function gaps(timestamps: ArrayLike<number>, count = timestamps.length): Float64Array {
  const out = new Float64Array(Math.max(0, count - 1));
  for (let i = 1; i < count; i++) out[i - 1] = timestamps[i]! - timestamps[i - 1]!;
  return out;
}

/** Index of the median element of `values` (the lower median when even). */
export function medianIndex(values: number[]): number {
  const order = values.map((v, i) => [v, i] as const).sort((x, y) => x[0] - y[0]);
  return order[Math.floor((order.length - 1) / 2)]![1];
}

export const MiB = 1024 * 1024;

export function fmtRate(perSecond: number | undefined): string {
  if (perSecond === undefined || !Number.isFinite(perSecond)) return "-";
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)}M`;
  if (perSecond >= 1e3) return `${(perSecond / 1e3).toFixed(1)}k`;
  return perSecond.toFixed(1);
}

export function fmtNum(value: number | undefined, digits = 1): string {
  if (value === undefined || !Number.isFinite(value)) return "-";
  return value.toFixed(digits);
}

export function fmtMiB(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return "-";
  return `${(bytes / MiB).toFixed(1)}`;
}

export function fmtRatio(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return "-";
  return `${value.toFixed(2)}x`;
}

/** Left-aligns the first column and right-aligns the others. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
