// When two clusters of a plot have the same name: one rule for the server (a rename or a new
// cluster taking another's name is refused) and the viewer (its rename check).

/** Cluster names compare once trimmed, case and accents counting: "Cluster A" and " Cluster A " are one name, "cluster a" another. */
export const clusterNameKey = (label: string): string => label.trim();

/**
 * Another cluster (not `key`) already named `label`, or undefined. Clusters an upload brought with
 * one name (SPIDAL files have them) are kept as they are; only a new name is checked against them.
 */
export function clusterNamed<C extends { key: number; label: string }>(clusters: readonly C[], label: string, key?: number): C | undefined {
  const wanted = clusterNameKey(label);
  return clusters.find((c) => c.key !== key && clusterNameKey(c.label) === wanted);
}
