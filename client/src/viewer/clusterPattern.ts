// Which clusters a filter pattern names, and the bulk edits applied to them: the cluster
// panel's buttons act on what the filter shows, so "internal" + Hide hides only those.
import type { ClusterStyle } from './clusterStyles';

export type ClusterMatcher = { test(label: string): boolean; error: string | null };

/**
 * A pattern is a case-insensitive substring, a glob when it has `*` or `?` (whole label:
 * `node_*`), or a regular expression between slashes (`/^clade (1|2)$/`).
 */
export function clusterMatcher(pattern: string): ClusterMatcher {
  const p = pattern.trim();
  if (!p) return { test: () => true, error: null };
  const regex = /^\/(.+)\/([a-z]*)$/.exec(p);
  if (regex) {
    try {
      const re = new RegExp(regex[1]!, regex[2]!.includes('i') ? 'i' : '');
      return { test: (label) => re.test(label), error: null };
    } catch (e) {
      return { test: () => false, error: `not a valid regular expression: ${(e as Error).message}` };
    }
  }
  if (/[*?]/.test(p)) {
    const source = p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    const re = new RegExp(`^${source}$`, 'i');
    return { test: (label) => re.test(label), error: null };
  }
  const needle = p.toLowerCase();
  return { test: (label) => label.toLowerCase().includes(needle), error: null };
}

/** The hidden set after showing, hiding or inverting `targets`; clusters outside them keep their state. */
export function hiddenAfter(styles: readonly ClusterStyle[], targets: readonly ClusterStyle[], action: 'show' | 'hide' | 'invert' | 'solo'): number[] {
  const hidden = new Set(styles.filter((s) => !s.visible).map((s) => s.key));
  if (action === 'solo') {
    const keep = new Set(targets.map((t) => t.key));
    return styles.filter((s) => !keep.has(s.key)).map((s) => s.key);
  }
  for (const t of targets) {
    const hide = action === 'hide' || (action === 'invert' && t.visible);
    if (hide) hidden.add(t.key); else hidden.delete(t.key);
  }
  return [...hidden];
}
