// A fixed-row-height list that renders only the rows in view (thousands of clusters stay fast).
import { useState } from 'react';

export function VirtualList<T>({ items, rowHeight, height, render, keyOf }: {
  items: readonly T[];
  rowHeight: number;
  height: number;
  render: (item: T) => React.ReactNode;
  keyOf: (item: T) => string | number;
}) {
  const [scrollTop, setScrollTop] = useState(0);
  const overscan = 5;
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  return (
    <div className="vlist" style={{ height, overflowY: 'auto' }} onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}>
      <div style={{ height: items.length * rowHeight, position: 'relative' }}>
        {items.slice(first, last).map((item, k) => (
          <div key={keyOf(item)} className="vrow" style={{ position: 'absolute', top: (first + k) * rowHeight, height: rowHeight, left: 0, right: 0 }}>
            {render(item)}
          </div>
        ))}
      </div>
    </div>
  );
}
