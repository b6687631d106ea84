// A cluster's new name, checked before it is stored: an empty name left a row with nothing to
// double-click, and a name another cluster has makes two clusters that the legend, the selection
// CSV and the export cannot tell apart.
import type { Cluster } from '@wpv/schema';

export type RenameCheck =
  /** the name to store (trimmed) */
  | { label: string }
  /** why the name is refused: the cluster keeps its old one */
  | { refused: string }
  /** the name is unchanged: nothing to store */
  | null;

export function checkRename(clusters: readonly Pick<Cluster, 'key' | 'label'>[], key: number, typed: string): RenameCheck {
  const old = clusters.find((c) => c.key === key)?.label ?? String(key);
  const label = typed.trim();
  if (label === old) return null;
  if (!label) return { refused: `A cluster needs a name: “${old}” keeps its name.` };
  const other = clusters.find((c) => c.key !== key && c.label === label);
  if (other) return { refused: `Another cluster (key ${other.key}) is already named “${label}”: “${old}” keeps its name. Pick a name no other cluster has.` };
  return { label };
}
