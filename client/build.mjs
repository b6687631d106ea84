// `npm run build -w client`: builds into a directory of its own under .builds/ and then points
// the `dist` symlink at it in one rename, so a running server never sees a half-written or
// emptied client (building in place emptied dist first: 503 until the build finished).
// The previous build stays, for requests that resolved the old link just before the swap.
import { readdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'vite';

const root = import.meta.dirname;
const builds = path.join(root, '.builds');
const dist = path.join(root, 'dist');
const name = `${new Date().toISOString().replace(/[-:.]/g, '')}-${process.pid}`; // sorts by time
const building = path.join(builds, `building-${name}`);

await build({ root, build: { outDir: building, emptyOutDir: true } });
await rename(building, path.join(builds, name));

const previous = await readlink(dist).catch(() => null);
if (previous === null) {
  // A dist directory from before the symlink (or none): moved aside, the one moment without a client.
  await rename(dist, path.join(builds, `old-${name}`)).catch((err) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
// Made beside the builds, read from dist's directory once renamed there.
const link = path.join(builds, `link-${name}`);
await symlink(path.join('.builds', name), link);
await rename(link, dist); // atomic: replaces the old link

// Older finished builds go; a concurrent build's directory and link are left to it, and so is
// what dist points at now (that build may have swapped since).
const keep = new Set([name, previous, await readlink(dist)].filter(Boolean).map((p) => path.basename(p)));
for (const entry of await readdir(builds)) {
  if (!/^(building|link)-/.test(entry) && !keep.has(entry)) await rm(path.join(builds, entry), { recursive: true, force: true });
}
