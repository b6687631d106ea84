// The plot's metadata columns in the viewer: their values in the frame on screen (fetched once
// per frame and column), the column the points are coloured by (its colours handed to the
// renderer, its legend) and the column they are labelled by. Both choices live in the view state,
// by column name, so that a link or a saved view restores them.
import { columnArray, columnText, type Plot } from '@wpv/schema';
import { useEffect, useMemo, useRef, useState } from 'react';
import { plots } from '../api/endpoints';
import type { SelectedPoint } from './csv';
import { columnColors, columnLegend, pointValues, type ColumnData, type LegendRow } from './metadata';
import type { Scene } from './scene';
import type { ViewState } from './viewState';

type ColumnChoice = Pick<ViewState, 'colorBy' | 'labelBy'>;

export interface Columns {
  /** index of the column colouring the points; null: the clusters' colours */
  colorBy: number | null;
  setColorBy(column: number | null): void;
  /** index of the column the points are labelled by; null: their labels */
  labelBy: number | null;
  setLabelBy(column: number | null): void;
  /** rows of the colour legend while coloured by a column */
  legend: LegendRow[] | null;
  /** a point's value of every column, in the frame on screen */
  values(i: number): [string, string][];
  /** a point's label: its value of the labelling column, else `fallback` */
  label(i: number, fallback: string): string;
  /** a point as the tooltip shows it: labelled by the labelling column, with every column's value */
  describe(point: SelectedPoint): SelectedPoint;
  /** column names the view asks for that the plot does not have (a link from another plot) */
  unknown: string[];
}

export function useColumns(plotId: string, plot: Plot | null, scene: Scene, frame: number, ready: boolean, fail: (e: unknown) => void,
  chosen: ColumnChoice, choose: (patch: Partial<ColumnChoice>) => void): Columns {
  const columns = useMemo(() => plot?.columns ?? [], [plot]);
  const indexOf = (name: string | null) => {
    const k = name === null ? -1 : columns.findIndex((c) => c.name === name);
    return k < 0 ? null : k;
  };
  const colorBy = indexOf(chosen.colorBy), labelBy = indexOf(chosen.labelBy);
  const nameOf = (k: number | null) => (k === null ? null : columns[k]?.name ?? null);
  const unknown = plot ? [chosen.colorBy, chosen.labelBy].filter((n): n is string => n !== null && indexOf(n) === null) : [];
  // A column the plot lacks is dropped from the view (the page says which): the link does not carry it on.
  const unknownNames = unknown.join(', ');
  useEffect(() => {
    if (unknownNames) choose({ colorBy: nameOf(colorBy), labelBy: nameOf(labelBy) });
  }, [unknownNames]); // eslint-disable-line react-hooks/exhaustive-deps -- once per set of unknown names
  const [data, setData] = useState<{ frame: number; columns: ColumnData[] } | null>(null);
  const cache = useRef(new Map<string, Promise<ColumnData>>());

  useEffect(() => {
    if (!ready || columns.length === 0) return;
    let live = true;
    const load = (k: number) => {
      const key = `${plotId}/${frame}/${k}`;
      let pending = cache.current.get(key);
      if (!pending) {
        pending = plots.column(plotId, frame, k).then((bytes) => columnArray(columns[k]!, bytes));
        cache.current.set(key, pending);
        pending.catch(() => cache.current.delete(key));
      }
      return pending;
    };
    Promise.all(columns.map((_, k) => load(k))).then((loaded) => { if (live) setData({ frame, columns: loaded }); }, (e) => { if (live) fail(e); });
    return () => { live = false; };
  }, [plotId, columns, frame, ready, fail]);

  const shown = data?.frame === frame ? data.columns : null;
  const colourColumn = colorBy !== null && shown ? columns[colorBy]! : null;
  const colourData = colorBy !== null && shown ? shown[colorBy]! : null;
  useEffect(() => {
    if (ready) scene.renderer?.setPointColors(colourColumn && colourData ? columnColors(colourColumn, colourData) : null);
  }, [scene, ready, colourColumn, colourData]);
  const legend = useMemo(() => (colourColumn && colourData ? columnLegend(colourColumn, colourData) : null), [colourColumn, colourData]);

  const values = (i: number) => (shown ? pointValues(columns, shown, i) : []);
  const label = (i: number, fallback: string) => {
    const d = labelBy !== null ? shown?.[labelBy] : undefined;
    return d && i < d.length ? columnText(columns[labelBy!]!, d, i) || fallback : fallback;
  };
  return {
    colorBy, labelBy, legend, values, label, unknown,
    setColorBy: (k) => choose({ colorBy: nameOf(k) }),
    setLabelBy: (k) => choose({ labelBy: nameOf(k) }),
    describe: (p) => ({ ...p, label: label(p.index, p.label), columns: values(p.index) }),
  };
}
