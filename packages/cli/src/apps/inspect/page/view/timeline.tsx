/**
 * The wire: every frame of the selected lane in both directions, virtualized; direction, time, method, id, the
 * request/response pairing with its latency, and the rule engine's verdicts on the frame they concern. Filters
 * narrow it (method, session, direction, errors only, full text); the selected frame opens below as a JSON tree
 * with the failing JSON paths marked; a sequence view draws the same rows as arrows between the two sides.
 */
import type { JSX } from "preact";
import { useMemo, useRef, useState } from "preact/hooks";
import type { LaneModel } from "../model/lane.js";
import type { FrameRow } from "../model/frames.js";
import type { Store } from "../model/store.js";
import { FilteredRows, NO_FILTERS, sameFilters, type Filters } from "./filter.js";
import { FrameDetail } from "./frame-detail.js";
import { VirtualList } from "./virtual-list.js";

const ROW = 26;

export function Timeline({ store, lane }: { store: Store; lane: LaneModel }): JSX.Element {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  if (store.wireQuery) {
    const query = store.wireQuery;
    store.wireQuery = undefined;
    setFilters({ ...NO_FILTERS, ...query });
  }
  const [view, setView] = useState<"list" | "sequence">("list");
  const cache = useRef<{ filtered: FilteredRows; errors: number } | undefined>(undefined);
  const rows = lane.frames.rows;
  const errors = filters.errorsOnly ? lane.frames.errorCount : 0;
  let filtered = cache.current?.filtered;
  if (
    !filtered ||
    filtered.rows !== rows ||
    !sameFilters(filtered.filters, filters) ||
    cache.current!.errors !== errors
  ) {
    filtered = new FilteredRows(rows, filters);
    cache.current = { filtered, errors };
  }
  const indexes = filtered.update();
  const selected = store.selectedFrame;
  const position = selected === undefined ? undefined : indexes.indexOf(selected);
  const sessions = useMemo(() => [...lane.fold.order], [lane.fold.order.length, lane]);
  const start = rows[0]?.time ?? 0;

  const select = (index: number | undefined) => {
    store.selectedFrame = index;
    store.changed();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (indexes.length === 0) return;
    const at = position === undefined || position < 0 ? -1 : position;
    const move: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: 20, PageUp: -20 };
    if (event.key in move) {
      event.preventDefault();
      select(indexes[Math.max(0, Math.min(indexes.length - 1, at + move[event.key]!))]);
    } else if (event.key === "Home") {
      event.preventDefault();
      select(indexes[0]);
    } else if (event.key === "End") {
      event.preventDefault();
      select(indexes[indexes.length - 1]);
    } else if (event.key === "Enter" && selected !== undefined && rows[selected]?.pair !== undefined) {
      select(rows[selected]!.pair);
    }
  };
  const set = (patch: Partial<Filters>) => setFilters({ ...filters, ...patch });

  const renderRow = (i: number) => {
    const row = rows[indexes[i]!]!;
    return view === "list" ? (
      <FrameLine key={row.index} row={row} start={start} selected={row.index === selected} onSelect={select} />
    ) : (
      <SequenceLine key={row.index} row={row} selected={row.index === selected} onSelect={select} />
    );
  };

  return (
    <section class="wire" aria-label="wire timeline">
      <div class="filters" role="search">
        <input
          type="search"
          aria-label="search frames"
          placeholder="Search frames…"
          value={filters.search}
          onInput={(e) => set({ search: (e.currentTarget as HTMLInputElement).value })}
        />
        <input
          type="text"
          aria-label="filter by method"
          placeholder="method"
          size={12}
          value={filters.method}
          onInput={(e) => set({ method: (e.currentTarget as HTMLInputElement).value })}
        />
        <select
          aria-label="filter by session"
          value={filters.session}
          onChange={(e) => set({ session: (e.currentTarget as HTMLSelectElement).value })}
        >
          <option value="">all sessions</option>
          {sessions.map((id) => (
            <option key={id} value={id}>
              {short(id)}
            </option>
          ))}
        </select>
        <select
          aria-label="filter by direction"
          value={filters.direction}
          onChange={(e) => set({ direction: (e.currentTarget as HTMLSelectElement).value as Filters["direction"] })}
        >
          <option value="">both ways</option>
          <option value="client">client → agent</option>
          <option value="agent">agent → client</option>
        </select>
        <label class="check">
          <input
            type="checkbox"
            checked={filters.errorsOnly}
            onChange={(e) => set({ errorsOnly: (e.currentTarget as HTMLInputElement).checked })}
          />{" "}
          errors only
        </label>
        <div class="seg" role="group" aria-label="timeline view">
          <button type="button" aria-pressed={view === "list"} onClick={() => setView("list")}>
            List
          </button>
          <button type="button" aria-pressed={view === "sequence"} onClick={() => setView("sequence")}>
            Sequence
          </button>
        </div>
        <span class="count" aria-live="polite" data-testid="frame-count">
          {indexes.length === rows.length ? `${rows.length} frames` : `${indexes.length} of ${rows.length} frames`}
          {lane.frames.errorCount > 0 ? ` · ${lane.frames.errorCount} with errors` : ""}
        </span>
      </div>
      {view === "sequence" ? (
        <div class="seq-head" aria-hidden="true">
          <span>client</span>
          <span>agent</span>
        </div>
      ) : null}
      <VirtualList
        count={indexes.length}
        rowHeight={ROW}
        renderRow={renderRow}
        scrollTo={position !== undefined && position >= 0 ? position : undefined}
        label="frames"
        class={view === "sequence" ? "seq" : "frames"}
        onKeyDown={onKeyDown}
        activeId={selected !== undefined ? `frame-${selected}` : undefined}
      />
      {selected !== undefined && rows[selected] ? (
        <FrameDetail row={rows[selected]!} lane={lane} onSelect={select} />
      ) : (
        <p class="hint">Select a frame to see it whole (arrow keys move, Enter jumps to its pair).</p>
      )}
      {lane.frames.endFindings.length > 0 ? (
        <ul class="end-findings" aria-label="findings at the end of the conversation">
          {lane.frames.endFindings.map((finding, i) => (
            <li key={i} class={`finding ${finding.severity}`}>
              <strong>{finding.rule}</strong> ({finding.side}): {finding.message}{" "}
              <a href={finding.spec} target="_blank" rel="noopener noreferrer">
                spec
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

export function short(id: string): string {
  return id.length > 14 ? `${id.slice(0, 6)}…${id.slice(-6)}` : id;
}

export function rowLabel(row: FrameRow): string {
  if (row.type === "unparsable") return "(not JSON)";
  if (row.type === "oversized") return `(oversized: ${row.bytes ?? "?"} bytes)`;
  if (row.type === "invalid") return "(invalid message)";
  const method = row.method ?? "(unknown request)";
  if (row.type === "response") return `${method} ${row.text.includes('"error"') ? "✗ error" : "✓ result"}`;
  return row.updateKind ? `${method} · ${row.updateKind}` : method;
}

interface LineProps {
  row: FrameRow;
  selected: boolean;
  onSelect: (index: number) => void;
}

function FrameLine({ row, start, selected, onSelect }: LineProps & { start: number }): JSX.Element {
  const findings = row.findings?.length ?? 0;
  return (
    <div
      id={`frame-${row.index}`}
      role="option"
      aria-selected={selected}
      class={`frame ${row.from} ${row.error ? "bad" : ""} ${selected ? "sel" : ""}`}
      data-index={row.index}
      onClick={() => onSelect(row.index)}
    >
      <span class="f-no">{row.index}</span>
      <span class="f-time">+{((row.time - start) / 1000).toFixed(3)}s</span>
      <span class="f-dir" title={row.from === "client" ? "client → agent" : "agent → client"}>
        {row.from === "client" ? "→" : "←"}
      </span>
      <span class="f-kind">
        {row.type === "notification"
          ? "notif"
          : row.type === "request"
            ? "req"
            : row.type === "response"
              ? "resp"
              : row.type}
      </span>
      <span class="f-method">{rowLabel(row)}</span>
      <span class="f-id">{row.id !== undefined ? `#${row.id}` : ""}</span>
      <span class="f-pair">
        {row.pair !== undefined ? (row.type === "response" ? `↖ ${row.pair}` : `↘ ${row.pair}`) : ""}
      </span>
      <span class="f-lat">{row.latency !== undefined ? `${row.latency.toFixed(1)} ms` : ""}</span>
      <span class="f-find">{findings > 0 ? `⚠ ${findings}` : ""}</span>
    </div>
  );
}

function SequenceLine({ row, selected, onSelect }: LineProps): JSX.Element {
  return (
    <div
      id={`frame-${row.index}`}
      role="option"
      aria-selected={selected}
      class={`seq-row ${row.from} ${row.error ? "bad" : ""} ${selected ? "sel" : ""} ${row.type}`}
      onClick={() => onSelect(row.index)}
    >
      <span class="seq-arrow">
        <span class="seq-label">
          {rowLabel(row)}
          {row.id !== undefined ? ` #${row.id}` : ""}
          {row.latency !== undefined ? ` (${row.latency.toFixed(1)} ms)` : ""}
        </span>
      </span>
    </div>
  );
}
