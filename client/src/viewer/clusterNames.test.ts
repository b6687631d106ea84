import { describe, expect, test } from 'vitest';
import { checkRename } from './clusterNames';

const clusters = [{ key: 1, label: 'cluster 1' }, { key: 2, label: 'cluster 2' }, { key: 3, label: 'cluster 3' }];

describe('renaming a cluster', () => {
  test('a new name is stored trimmed', () => {
    expect(checkRename(clusters, 3, '  Ascomycota A ')).toEqual({ label: 'Ascomycota A' });
  });
  test('an empty or blank name is refused and the old name kept', () => {
    for (const typed of ['', '   ']) expect(checkRename(clusters, 3, typed)).toEqual({ refused: 'A cluster needs a name: “cluster 3” keeps its name.' });
  });
  test('the name of another cluster is refused, naming that cluster', () => {
    const check = checkRename(clusters, 3, 'cluster 2 ');
    expect(check).toHaveProperty('refused');
    expect(check && 'refused' in check && check.refused).toMatch(/Another cluster \(key 2\) is already named “cluster 2”: “cluster 3” keeps its name/);
  });
  test('the unchanged name stores nothing', () => {
    expect(checkRename(clusters, 2, 'cluster 2')).toBeNull();
  });
  test('names differing only in case are different names', () => {
    expect(checkRename(clusters, 3, 'Cluster 2')).toEqual({ label: 'Cluster 2' });
  });
});
