// Label search: the server's matches in the frame on screen, with the camera flown to those not
// in a hidden cluster (where it would frame empty space).
import { useCallback, useEffect, useRef, useState } from 'react';
import { plots } from '../api/endpoints';
import { shownPoints } from './clusterStyles';
import type { Scene } from './scene';
import type { LabelSearch } from './SearchResults';

export interface Search {
  /** point indices in the frame on screen */
  matches: number[];
  setMatches(m: number[]): void;
  /** the last query, null when none is shown */
  search: LabelSearch | null;
  /** `column`: a metadata column's name to search only; else labels and category columns */
  find(label: string, column?: string): Promise<void>;
  clear(): void;
}

/** `hidden`: the keys of the clusters hidden in the view */
export function useSearch(plotId: string, scene: Scene, hidden: readonly number[], fail: (e: unknown) => void): Search {
  const hiddenNow = useRef(hidden);
  useEffect(() => { hiddenNow.current = hidden; });
  const [matches, setMatches] = useState<number[]>([]);
  const [search, setSearch] = useState<LabelSearch | null>(null);
  const clear = useCallback(() => { setMatches([]); setSearch(null); }, []);
  const find = useCallback(async (label: string, column?: string) => {
    const query = label.trim();
    if (!query) return clear();
    try {
      const result = await plots.search(plotId, query, scene.frame?.index ?? 0, column || undefined);
      setMatches(result.indices);
      setSearch({ query, truncated: result.truncated });
      const shown = scene.frame ? shownPoints(result.indices, scene.frame.clusters, hiddenNow.current) : result.indices;
      if (shown.length) scene.renderer?.flyTo(shown); // all hidden: the results say so, the view stays
    } catch (e) { fail(e); }
  }, [plotId, scene, fail, clear]);
  return { matches, setMatches, search, find, clear };
}
