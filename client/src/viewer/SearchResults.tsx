// The points a label search found: a capped list whose rows fly the camera to one point (a point
// in a hidden cluster says so, and so do the results when every match is hidden), or a visible "not found".
/** Rows listed; the count says how many more there are. */
export const LISTED_MATCHES = 100;

export interface LabelSearch {
  query: string;
  /** the server stopped at its limit: there are more matches */
  truncated: boolean;
}

/** `matches`: point indices in the frame shown (they follow their labels when the frame changes). */
export function SearchResults({ search, matches, labelOf, hiddenIn, onPick, onClose }: {
  search: LabelSearch;
  matches: readonly number[];
  labelOf: (index: number) => string;
  /** the name of the hidden cluster a point is in, undefined where it is shown */
  hiddenIn: (index: number) => string | undefined;
  onPick: (index: number, label: string) => void;
  onClose: () => void;
}) {
  if (!matches.length) {
    return <p className="notice" data-testid="search-not-found" onClick={onClose}>No point label contains “{search.query}”.</p>;
  }
  const count = `${matches.length.toLocaleString()}${search.truncated ? '+' : ''}`;
  const allHidden = matches.every((i) => hiddenIn(i) !== undefined);
  return (
    <section className="panel search-results" data-testid="search-results">
      <h3>{count} match{matches.length === 1 ? '' : 'es'} for “{search.query}”
        {matches.length > LISTED_MATCHES && <small> (first {LISTED_MATCHES} listed)</small>}
        {' '}<button onClick={onClose} title="clear the search">×</button></h3>
      {allHidden && (
        <p className="muted all-hidden" data-testid="search-all-hidden">
          {matches.length === 1 ? 'It is in a hidden cluster, so the view stays: pick it' : 'All are in hidden clusters, so the view stays: pick one'} to show its cluster.
        </p>
      )}
      <ul className="selection-list">
        {matches.slice(0, LISTED_MATCHES).map((i) => {
          const label = labelOf(i) || `point ${i}`;
          const hidden = hiddenIn(i);
          return (
            <li key={i}>
              <button className="linklike" data-testid="search-hit" onClick={() => onPick(i, label)}
                title={hidden === undefined ? 'go to this point' : `show cluster “${hidden}” and go to this point`}>{label}</button>
              {hidden !== undefined && <small className="muted" data-testid="search-hit-hidden"> in hidden cluster “{hidden}”</small>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
