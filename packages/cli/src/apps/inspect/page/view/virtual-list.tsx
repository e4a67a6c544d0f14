/**
 * A virtualized list of fixed-height rows: only the rows in view (and a few around them) are in the DOM, however
 * many there are, so a 200,000-frame timeline scrolls and updates like a 20-frame one. It follows the end while
 * the person has not scrolled up ("tail"), and scrolls a given row into view when asked.
 */
import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";

export interface VirtualListProps {
  count: number;
  rowHeight: number;
  renderRow: (index: number) => JSX.Element;
  /** Keep the last row in view while the list grows (until the person scrolls up). */
  follow?: boolean;
  /** Scrolls this row into view when it changes. */
  scrollTo?: number | undefined;
  label: string;
  class?: string;
  onKeyDown?: (event: KeyboardEvent) => void;
  /** The id of the active row element, for `aria-activedescendant`. */
  activeId?: string | undefined;
}

const OVERSCAN = 8;

export function VirtualList(props: VirtualListProps): JSX.Element {
  const ref = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 400 });
  const atEnd = useRef(true);

  useEffect(() => {
    const element = ref.current!;
    const measure = () => setView({ top: element.scrollTop, height: element.clientHeight });
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    measure();
    return () => observer.disconnect();
  }, []);

  useLayoutEffect(() => {
    const element = ref.current!;
    if (props.follow !== false && atEnd.current) {
      const end = props.count * props.rowHeight - element.clientHeight;
      if (end > element.scrollTop) element.scrollTop = end;
    }
  }, [props.count]);

  useLayoutEffect(() => {
    if (props.scrollTo === undefined) return;
    const element = ref.current!;
    const top = props.scrollTo * props.rowHeight;
    if (top < element.scrollTop || top + props.rowHeight > element.scrollTop + element.clientHeight) {
      element.scrollTop = Math.max(0, top - element.clientHeight / 2);
    }
  }, [props.scrollTo]);

  const first = Math.max(0, Math.floor(view.top / props.rowHeight) - OVERSCAN);
  const last = Math.min(props.count, Math.ceil((view.top + view.height) / props.rowHeight) + OVERSCAN);
  const rows: JSX.Element[] = [];
  for (let i = first; i < last; i++) rows.push(props.renderRow(i));
  return (
    <div
      ref={ref}
      class={`vlist ${props.class ?? ""}`}
      role="listbox"
      aria-label={props.label}
      tabIndex={0}
      aria-activedescendant={props.activeId}
      onKeyDown={props.onKeyDown}
      onScroll={(event) => {
        const element = event.currentTarget as HTMLDivElement;
        atEnd.current = element.scrollTop + element.clientHeight >= element.scrollHeight - props.rowHeight;
        setView({ top: element.scrollTop, height: element.clientHeight });
      }}
    >
      <div class="vlist-space" style={{ height: `${props.count * props.rowHeight}px` }}>
        <div class="vlist-rows" style={{ transform: `translateY(${first * props.rowHeight}px)` }}>
          {rows}
        </div>
      </div>
    </div>
  );
}
