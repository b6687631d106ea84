// Making, renaming and deleting the user's collections, beside the library's collection filter.
import { compareNames, type Collection } from '@wpv/schema';
import { collections as collectionsApi } from '../api/endpoints';
import { formatCount } from '../app/format';

/** `selected`: the collection the library is filtered by ('' for none): the one renamed or deleted. */
export function CollectionActions({ collections, selected, onChange, onDeleted, onError }: {
  collections: Collection[];
  selected: string;
  /** The user's collections after a change. */
  onChange: (collections: Collection[]) => void;
  onDeleted: () => void;
  onError: (error: unknown) => void;
}) {
  const current = collections.find((c) => c.id === selected);

  async function run(work: () => Promise<Collection[]>) {
    try {
      onError(null);
      // In the API's order (by name), which a new or renamed collection would otherwise break.
      onChange((await work()).sort((a, b) => compareNames(a.name, b.name)));
    } catch (e) { onError(e); }
  }
  function create() {
    const name = prompt('Name of the new collection')?.trim();
    if (name) void run(async () => [...collections, await collectionsApi.create(name)]);
  }
  function rename(c: Collection) {
    const name = prompt(`New name of the collection "${c.name}"`, c.name)?.trim();
    if (name && name !== c.name) void run(async () => { const renamed = await collectionsApi.rename(c.id, name); return collections.map((o) => (o.id === c.id ? renamed : o)); });
  }
  function remove(c: Collection) {
    const kept = c.plots ? ` Its ${formatCount(c.plots, 'plot')} will be kept, in no collection.` : '';
    if (!confirm(`Delete the collection "${c.name}"?${kept}`)) return;
    void run(async () => {
      await collectionsApi.remove(c.id);
      onDeleted();
      return collections.filter((o) => o.id !== c.id);
    });
  }

  return (
    <>
      <button onClick={create}>New collection</button>
      {current && <>
        {/* Short labels beside the collection they act on: the filters stay on one line at 1400 px. */}
        <button aria-label="Rename collection" title={`Rename the collection "${current.name}"`} onClick={() => rename(current)}>Rename</button>
        <button aria-label="Delete collection" title={`Delete the collection "${current.name}"`} className="danger" onClick={() => remove(current)}>Delete</button>
      </>}
    </>
  );
}
