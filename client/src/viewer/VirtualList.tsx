// A fixed-row-height list that renders only the rows in view (thousands of clusters stay fast).
// Its height is the stylesheet's (it may grow with the space around it): the rows drawn follow it.
import { useLayoutEffect, useRef, useState } from 'react';

export function VirtualList<T>({ items, rowHeight, render, keyOf }: {
  items: readonly T[];
  rowHeight: number;
  render: (item: T) => React.ReactNode;
  keyOf: (item: T) => string | number;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(0);
  useLayoutEffect(() => {
    const list = ref.current!;
    const measure = () => setHeight(list.clientHeight);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(list);
    return () => observer.disconnect();
  }, []);
  const overscan = 5;
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  return (
    <div ref={ref} className="vlist" onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}>
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
