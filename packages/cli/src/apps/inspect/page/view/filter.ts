/**
 * The timeline's filters (method, session, direction, errors only, full text) and the filtered row list, kept up to
 * date incrementally: rows arriving are tested once; a filter change rescans.
 */
import type { FrameRow } from "../model/frames.js";

export interface Filters {
  method: string;
  session: string;
  direction: "" | "client" | "agent";
  errorsOnly: boolean;
  search: string;
}

export const NO_FILTERS: Filters = { method: "", session: "", direction: "", errorsOnly: false, search: "" };

export function matches(row: FrameRow, filters: Filters): boolean {
  if (filters.direction && row.from !== filters.direction) return false;
  if (filters.errorsOnly && !row.error) return false;
  if (filters.session && row.sessionId !== filters.session) return false;
  if (filters.method) {
    const label = `${row.method ?? row.type} ${row.updateKind ?? ""}`;
    if (!label.toLowerCase().includes(filters.method.toLowerCase())) return false;
  }
  if (filters.search && !row.text.toLowerCase().includes(filters.search.toLowerCase())) return false;
  return true;
}

/** The indexes of the rows that pass, extended as rows arrive. */
export class FilteredRows {
  readonly indexes: number[] = [];
  #scanned = 0;

  constructor(
    readonly rows: readonly FrameRow[],
    readonly filters: Filters,
  ) {}

  /** Tests the rows that arrived since the last call, and the rows whose findings came later (errors only). */
  update(): readonly number[] {
    const { rows, filters } = this;
    const all = !filters.direction && !filters.errorsOnly && !filters.session && !filters.method && !filters.search;
    for (; this.#scanned < rows.length; this.#scanned++) {
      const row = rows[this.#scanned];
      if (row !== undefined && (all || matches(row, filters))) this.indexes.push(this.#scanned);
    }
    return this.indexes;
  }
}

export function sameFilters(a: Filters, b: Filters): boolean {
  return (
    a.method === b.method &&
    a.session === b.session &&
    a.direction === b.direction &&
    a.errorsOnly === b.errorsOnly &&
    a.search === b.search
  );
}
