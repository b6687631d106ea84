// Frames read one by one become one plot: the cluster table is the union of the
// declared clusters (first declaration wins) plus every key the points use.
import type { ClusterDef, ParsedPlot } from './types.ts';
import { defaultCluster, type FrameRead } from './reader.ts';

const KEYS_NAMED_IN_WARNING = 10;

export function assemblePlot(title: string, reads: FrameRead[]): ParsedPlot {
  const clusters = new Map<number, ClusterDef>();
  for (const read of reads) {
    for (const cluster of read.declared) if (!clusters.has(cluster.key)) clusters.set(cluster.key, cluster);
  }
  const declaredKeys = new Set(clusters.keys());
  // Keys a PlotViz file uses without declaring them: key → number of points.
  const undeclared = new Map<number, number>();
  for (const read of reads) {
    const keys = read.frame.clusterKeys;
    let last = -1;
    let lastUndeclared = false;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (key !== last) {
        last = key;
        lastUndeclared = !read.implicitClusters && !declaredKeys.has(key);
        if (!clusters.has(key)) clusters.set(key, defaultCluster(key, String(key)));
      }
      if (lastUndeclared) undeclared.set(key, (undeclared.get(key) ?? 0) + 1);
    }
  }
  return {
    title,
    clusters: [...clusters.values()].sort((a, b) => a.key - b.key),
    frames: reads.map((read) => read.frame),
    warnings: undeclared.size > 0 ? [undeclaredWarning(undeclared)] : [],
    ...(reads[0]?.display && { display: reads[0].display }),
  };
}

function undeclaredWarning(undeclared: Map<number, number>): string {
  let points = 0;
  for (const count of undeclared.values()) points += count;
  const keys = [...undeclared.keys()].sort((a, b) => a - b);
  const named = keys.slice(0, KEYS_NAMED_IN_WARNING).join(', ') + (keys.length > KEYS_NAMED_IN_WARNING ? ', …' : '');
  const subject = points === 1 ? '1 point uses' : `${points} points use`;
  const object = keys.length === 1 ? `cluster key ${named}` : `cluster keys ${named}`;
  return `${subject} undeclared ${object}; declared with default settings`;
}
