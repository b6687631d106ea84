// Peak memory of an interpolated sequence-clustering job's worker stages at N points, from
// stage outputs written here (N points and clusters, 8 centres, ids, a FASTA with
// descriptions, a 4,000 sample): `assemble` builds the plot before the store (its module's
// toPlot); `sample` chooses the sample and splits the FASTA (splitFasta), and prints a
// digest of what it wrote, so that two builds can be seen to agree. Run against another
// checkout (--root) to compare builds in one sitting; each run is a fresh process, so the
// peak is that build's alone.
//   node --import tsx bench/interp/plot_memory.ts [--stage assemble|sample] [--n 300000] [--root CHECKOUT] [--rounds 3]
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    stage: { type: 'string', default: 'assemble' }, n: { type: 'string', default: '300000' }, root: { type: 'string' },
    rounds: { type: 'string', default: '3' }, child: { type: 'string' },
  },
});
const n = Number(values.n);
const SAMPLE = 4000;

/** The child: one stage in this process, its peak RSS (VmHWM) before and after, as JSON. */
async function measure(root: string, workdir: string): Promise<void> {
  const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
  const job = {
    _id: 'probe', name: 'probe', type: 'sequence-clustering', workdir, params: { dimension: 3, seed: 0 }, stages: {},
    input: { points: n, sample: SAMPLE, file: 'reads.fasta' },
  };
  const before = hwm();
  const started = performance.now();
  let written: string | undefined;
  if (values.stage === 'sample') {
    const { splitFasta } = await import(path.join(root, 'server/src/jobtypes/interpolation.ts'));
    await splitFasta({ ...job, workdir: path.join(workdir, 'split') });
    const digest = createHash('sha256');
    for (const file of ['sample.txt', 'labels.txt', 'sample.fasta', 'rest.fasta']) digest.update(readFileSync(path.join(workdir, 'split', file)));
    written = digest.digest('hex').slice(0, 16);
  } else {
    const { JOB_MODULES } = await import(path.join(root, 'server/src/jobtypes/index.ts'));
    const plot = await JOB_MODULES['sequence-clustering'].toPlot(job);
    if (plot.frames[0].labels.length !== n) throw new Error('wrong number of points');
  }
  console.log(JSON.stringify({ beforeMB: before, peakMB: hwm(), seconds: (performance.now() - started) / 1000, written }));
}

/** Stage outputs as the pipeline writes them (FILES in jobs/src/workdir.ts). */
function writeOutputs(dir: string): void {
  const rows = Array.from({ length: n }, (_, i) => i);
  const coordinate = (i: number, k: number) => (Math.sin(i * 12.9898 + k * 78.233) * 0.5).toFixed(6);
  writeFileSync(path.join(dir, 'points.txt'), rows.map((i) => `${i}\t${coordinate(i, 0)}\t${coordinate(i, 1)}\t${coordinate(i, 2)}\n`).join(''));
  writeFileSync(path.join(dir, 'clusters.txt'), rows.map((i) => `${i} ${i % 8}\n`).join(''));
  writeFileSync(path.join(dir, 'centers.txt'), Array.from({ length: 8 }, (_, c) => `${c} ${n / 8} ${c}\n`).join(''));
  writeFileSync(path.join(dir, 'labels.txt'), rows.map((i) => `read_${i}_family${i % 8}\n`).join(''));
  writeFileSync(path.join(dir, 'sample.txt'), rows.filter((i) => i % Math.floor(n / SAMPLE) === 0).slice(0, SAMPLE).map((i) => `${i}\n`).join(''));
  writeFileSync(path.join(dir, 'reads.fasta'), rows.map((i) => `>read_${i}_family${i % 8} grown from 16S read ${i % 4640}\nACGT\n`).join(''));
  mkdirSync(path.join(dir, 'split'));
  symlinkSync(path.join(dir, 'reads.fasta'), path.join(dir, 'split', 'reads.fasta'));
}

if (values.child) {
  await measure(values.root!, values.child);
} else {
  const root = path.resolve(values.root ?? path.join(import.meta.dirname, '../..'));
  const dir = mkdtempSync(path.join(tmpdir(), 'plot-memory-'));
  try {
    writeOutputs(dir);
    const runs = Array.from({ length: Number(values.rounds) }, () =>
      JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--stage', values.stage!, '--n', String(n), '--root', root, '--child', dir], { cwd: root, encoding: 'utf8' })),
    );
    const median = (key: string) => runs.map((run) => run[key]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
    console.log(JSON.stringify({ stage: values.stage, n, root, rounds: runs.length, medianPeakMB: median('peakMB'), medianBeforeMB: median('beforeMB'), medianSeconds: median('seconds'), runs }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
