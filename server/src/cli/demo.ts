// Loads the demo plots (public, owned by the login-less user "demo"); running it
// again adds only what is missing. The stock series is computed by the platform's own
// stock-timeseries job, so the workers and the hpc-bridge must be running
// (`--without-stocks` leaves it out: the uploaded demos alone, in seconds).
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import { Plots } from '../services/plots.ts';
import { openStore } from '../storage/db.ts';
import { Jobs } from '../services/jobs.ts';
import { storeDrawnThumbnail } from '../services/thumbnails.ts';
import { parseFile } from '../formats/index.ts';
import { Trees } from '../services/trees.ts';
import { clusteredBlobsText, newickFromPolylines, stockMarketCsv } from './demo-data.ts';

const DEMO_USER = 'demo';
const STOCK_DEMO = 'Stock market by sector (time series)';
const TREE_DEMO = 'Phylogenetic tree sample';
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
      name: TREE_DEMO,
      description: '3,640 fungal sequences placed in 3D with their phylogenetic tree drawn as polylines (SPIDAL sample); the tree is attached too, to colour its clades (Tree panel).',
      tags: ['demo', 'biology', 'tree'],
      file: async () => treeSample,
    },
    {
      name: 'Clustered blobs (DA-MDS text format)',
      description: '20,000 points in 12 Gaussian clusters, in the 5-column DA-MDS output format.',
      tags: ['demo', 'clusters'],
      file: async () => writeDemo('blobs.txt', clusteredBlobsText(20_000, 12)),
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
  if (existsSync(treeSample)) await attachSampleTree(treeSample);
  if (!process.argv.includes('--without-stocks')) await loadStockDemo();
  for (const name of [...demos.map((d) => d.name), STOCK_DEMO]) await thumbnailIfMissing(name);
} finally {
  await rm(work, { recursive: true, force: true });
  await store.client.close();
}

/** The tree sample's tree, from the polylines that draw it, attached so that the viewer colours its clades. */
async function attachSampleTree(file: string): Promise<void> {
  const doc = await store.plots.findOne({ owner: DEMO_USER, name: TREE_DEMO, state: 'ready' });
  const trees = new Trees(plots, store.blobs);
  if (!doc || (await trees.get(doc))) return;
  const { frames: [frame] } = await parseFile(file, path.basename(file), plots.parseLimits);
  const newick = await writeDemo('tree_sample.nwk', newickFromPolylines(frame!.edges, frame!.labels));
  const { tree } = await trees.put(doc, { path: newick, originalName: 'tree_sample.nwk', bytes: (await stat(newick)).size }, 'file');
  console.log(`attached the tree of "${TREE_DEMO}": ${tree.matched} of ${tree.leaves} leaves at points`);
}

/** Nobody opens the demo plots as their owner, whose first view would become the thumbnail: it is drawn here. */
async function thumbnailIfMissing(name: string): Promise<void> {
  const doc = await store.plots.findOne({ owner: DEMO_USER, name, state: 'ready' });
  if (!doc || doc.hasThumbnail) return;
  await storeDrawnThumbnail(plots, store.blobs, doc);
  console.log(`drew the thumbnail of "${name}"`);
}

async function writeDemo(name: string, content: string | Buffer): Promise<string> {
  const file = path.join(work, name);
  await writeFile(file, content);
  return file;
}

/** A generated market's prices through the stock-timeseries pipeline: one aligned frame per window. */
async function loadStockDemo(): Promise<void> {
  const name = STOCK_DEMO;
  if (await store.plots.countDocuments({ owner: DEMO_USER, name, state: 'ready' }, { limit: 1 })) return;
  const jobs = Jobs.open(store, config, plots.quota);
  try {
    const csv = await writeDemo('market.csv', stockMarketCsv(240, 3 * 252));
    const { id } = await jobs.submit(DEMO_USER, {
      fields: { type: 'stock-timeseries', name, params: JSON.stringify({ windowDays: 182, stepDays: 7 }) },
      files: { file: { path: csv, originalName: 'market.csv', bytes: (await stat(csv)).size } },
      cleanup: async () => undefined,
    });
    console.log(`computing "${name}" (job ${id}) …`);
    const deadline = Date.now() + 10 * 60_000;
    for (;;) {
      const job = await jobs.repo.get(id);
      if (job?.state === 'succeeded' && job.plotId) {
        await plots.patch(job.plotId, DEMO_USER, {
          description: '240 generated stocks in 8 sectors over 3 years: half-year windows every week, each a weighted DA-MDS warm-started from and aligned to the one before. Play it and follow a ticker with trails.',
          visibility: 'public',
          tags: ['demo', 'time series', 'stocks'],
        });
        console.log(`loaded "${name}": ${job.input.points} stocks, computed by job ${id}`);
        return;
      }
      if (job && ['failed', 'cancelled'].includes(job.state)) throw new Error(`the stock demo job ${id} ${job.state}: ${job.error ?? ''}`);
      if (Date.now() > deadline) throw new Error(`the stock demo job ${id} did not finish in 10 minutes; see the Jobs page`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  } finally {
    await jobs.close();
  }
}
