// Reads a running program's stdout as it grows and keeps its latest JSON progress
// line (issue 3: one object per line, "phase":"done" last) and a stress-per-iteration
// series for the chart, bounded by halving its resolution when it fills up.
import { open } from 'node:fs/promises';
import type { SeriesPoint } from '@wpv/jobs/model';

const MAX_SERIES = 400;
const MAX_READ = 1024 * 1024;

export class ProgressReader {
  private offset = 0;
  private partial = '';
  latest: Record<string, unknown> | null = null;
  series: SeriesPoint[] = [];
  /** Bumped when `latest` changes: the bridge writes the job document only then. */
  version = 0;
  private stressLines = 0;

  constructor(private readonly file: string) {}

  /** Reads what was appended since the last call. */
  async update(): Promise<void> {
    const handle = await open(this.file, 'r').catch(() => null);
    if (!handle) return;
    try {
      for (;;) {
        const buffer = Buffer.alloc(MAX_READ);
        const { bytesRead } = await handle.read(buffer, 0, MAX_READ, this.offset);
        if (bytesRead === 0) return;
        this.offset += bytesRead;
        const lines = (this.partial + buffer.subarray(0, bytesRead).toString('utf8')).split('\n');
        this.partial = lines.pop()!;
        for (const line of lines) this.take(line);
      }
    } finally {
      await handle.close();
    }
  }

  private take(line: string): void {
    const text = line.trim();
    if (!text.startsWith('{')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return; // a program's stray output, not a progress line
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return;
    const record = parsed as Record<string, unknown>;
    this.latest = record;
    this.version++;
    // The final "done" line repeats the last stress as a result, not as one more step.
    if (typeof record.stress === 'number' && record.phase !== 'done') {
      // One point per temperature step, at the program's running iteration count when it
      // reports one (DA-MDS does), else numbered here.
      ++this.stressLines;
      this.series.push({
        iteration: typeof record.iteration === 'number' ? record.iteration : this.stressLines,
        stress: record.stress,
        temperature: typeof record.temperature === 'number' ? record.temperature : null,
      });
      if (this.series.length > MAX_SERIES) this.series = this.series.filter((_, i) => i % 2 === 1);
    }
  }
}
