import { type KeyboardEvent, type ReactNode, useEffect, useLayoutEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";

interface Props {
  rowCount: number;
  rowHeight: number;
  /** Renders row `index`; it must position itself at `top` (absolute). */
  renderRow: (index: number, top: number) => ReactNode;
  /** The row kept in view: scrolled to whenever `focusKey` changes. */
  focusIndex: number | undefined;
  /**
   * What the focused row is (its id). Rows above it may come and go (a branch collapsing), moving
   * its index; only a new key scrolls, so expanding a branch never yanks the view away.
   */
  focusKey: string | undefined;
  onKeyDown?: (event: KeyboardEvent<HTMLDivElement>) => void;
  label: string;
  activeDescendant?: string | undefined;
}

const OVERSCAN = 12;

/**
 * A list that renders only the rows in view (plus a margin), so 30,000 rows cost as much as 40.
 * Rows have one fixed height, which keeps the maths exact and scrolling free of layout work.
 */
export function VirtualList({ rowCount, rowHeight, renderRow, focusIndex, focusKey, onKeyDown, label, activeDescendant }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setHeight(el.clientHeight);
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const focusIndexRef = useRef(focusIndex);
  focusIndexRef.current = focusIndex;
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on focusKey alone, on purpose (see the prop).
  useEffect(() => {
    const el = ref.current;
    const focusIndex = focusIndexRef.current;
    if (!el || focusIndex === undefined) return;
    const top = focusIndex * rowHeight;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top + rowHeight - el.clientHeight;
  }, [focusKey, rowHeight]);

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(rowCount, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) rows.push(renderRow(i, i * rowHeight));

  return (
    <div
      ref={ref}
      className="vlist"
      role="tree"
      aria-label={label}
      aria-activedescendant={activeDescendant}
      tabIndex={0}
      // Rendered within the scroll event rather than at React's next continuous-priority turn, so the
      // rows for a jump are there in the frame the browser scrolls in.
      onScroll={(e) => {
        const top = e.currentTarget.scrollTop;
        flushSync(() => setScrollTop(top));
      }}
      onKeyDown={onKeyDown}
    >
      <div className="vlist-inner" style={{ height: rowCount * rowHeight }}>
        {rows}
      </div>
    </div>
  );
}
