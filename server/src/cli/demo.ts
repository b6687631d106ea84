// Loads the demo plots (public, owned by the login-less user "demo"); running it
// again adds only what is missing.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import { Plots } from '../services/plots.ts';
import { openStore } from '../storage/db.ts';
import { clusteredBlobsText, stockSeriesZip } from './demo-data.ts';

const DEMO_USER = 'demo';
const config = loadConfig();
const store = await openStore(config.mongodbUri);
const plots = new Plots(store, config.limits);
const work = await mkdtemp(path.join(tmpdir(), 'wpv-demo-'));

try {
  // "!" is no argon2 hash, so no password ever matches: the account cannot log in.
  await store.users.updateOne(
    { _id: DEMO_USER },
    { $setOnInsert: { username: DEMO_USER, passwordHash: '!', createdAt: new Date() } },
    { upsert: true },
  );
  const treeSample = path.resolve(import.meta.dirname, '../../../../shared/data/tree_sample.pviz');
  const demos: Array<{ name: string; description: string; tags: string[]; file: () => Promise<string> }> = [
    {
      name: 'Phylogenetic tree sample',
      description: '3,640 fungal sequences placed in 3D with their phylogenetic tree drawn as polylines (SPIDAL sample).',
      tags: ['demo', 'biology', 'tree'],
      file: async () => treeSample,
    },
    {
      name: 'Clustered blobs (DA-MDS text format)',
      description: '20,000 points in 12 Gaussian clusters, in the 5-column DA-MDS output format.',
      tags: ['demo', 'clusters'],
      file: async () => writeDemo('blobs.txt', clusteredBlobsText(20_000, 12)),
    },
    {
      name: 'Stock random walks (time series)',
      description: '120 frames × 400 synthetic stocks: play it and follow a ticker with trails.',
      tags: ['demo', 'time series'],
      file: async () => writeDemo('stocks.zip', await stockSeriesZip(120, 400)),
    },
  ];
  for (const demo of demos) {
    if (await store.plots.countDocuments({ owner: DEMO_USER, name: demo.name, state: 'ready' }, { limit: 1 })) continue;
    const file = await demo.file();
    if (!existsSync(file)) {
      console.log(`skipped "${demo.name}": ${file} is not here`);
      continue;
    }
    const plot = await plots.ingest(DEMO_USER, { path: file, originalName: path.basename(file) }, {
      name: demo.name,
      description: demo.description,
      visibility: 'public',
      tags: demo.tags,
    });
    console.log(`loaded "${plot.name}": ${plot.points} points × ${plot.frames} frame(s)`);
  }
} finally {
  await rm(work, { recursive: true, force: true });
  await store.client.close();
}

async function writeDemo(name: string, content: string | Buffer): Promise<string> {
  const file = path.join(work, name);
  await writeFile(file, content);
  return file;
}
