// Local backend: mpirun on this machine, one process group per stage (setsid), so a
// cancel kills every rank and the programs outlive a bridge restart.
import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { STAGE_FILES, exists } from '@wpv/jobs/workdir';
import { RUN_STAGE, mpirunArgv, stageEnv, type Backend, type BackendState, type Handle, type Submission } from './backend.ts';

const KILL_GRACE_MS = 5000;

export class LocalBackend implements Backend {
  readonly kind = 'local';
  private onEnd: () => void = () => {};

  /** At most `slots` programs run at once; the others wait for a slot in run-stage.sh. */
  constructor(
    private readonly slots: number,
    private readonly slotDir: string,
  ) {}

  async submit(s: Submission): Promise<string> {
    await mkdir(this.slotDir, { recursive: true });
    const child = spawn(RUN_STAGE, [s.dir, ...mpirunArgv(s.command)], {
      cwd: s.dir,
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, ...stageEnv(s.command), WPV_SLOTS: String(this.slots), WPV_SLOT_DIR: this.slotDir },
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.once('exit', () => this.onEnd()); // the wrapper exits after writing exit.json
    child.unref();
    return String(child.pid);
  }

  watch(onEnd: () => void): void {
    this.onEnd = onEnd;
  }

  async poll(handles: Handle[]): Promise<Map<string, BackendState>> {
    const states = new Map<string, BackendState>();
    for (const h of handles) {
      if (await exists(path.join(h.dir, STAGE_FILES.exit))) states.set(h.id, { state: 'ended' });
      else if (await this.alive(h)) states.set(h.id, { state: 'running' });
      // The wrapper writes exit.json before it exits: look once more to close that race.
      else if (await exists(path.join(h.dir, STAGE_FILES.exit))) states.set(h.id, { state: 'ended' });
      else states.set(h.id, { state: 'lost', reason: `process group ${h.id} ended without an exit record` });
    }
    return states;
  }

  async cancel(h: Handle): Promise<void> {
    const group = -Number(h.id);
    if (!(await this.alive(h))) return;
    signal(group, 'SIGTERM');
    const deadline = Date.now() + KILL_GRACE_MS;
    while (Date.now() < deadline && (await this.alive(h))) await new Promise((r) => setTimeout(r, 100));
    signal(group, 'SIGKILL');
  }

  async find(s: Submission): Promise<string | null> {
    const launch = await readFile(path.join(s.dir, STAGE_FILES.launch), 'utf8').catch(() => null);
    return launch ? String(JSON.parse(launch).pid) : null;
  }

  /** The group leader is alive and is still our wrapper (not a recycled pid). */
  private async alive(h: Handle): Promise<boolean> {
    const cmdline = await readFile(`/proc/${h.id}/cmdline`, 'utf8').catch(() => '');
    return cmdline.includes(RUN_STAGE) && cmdline.includes(h.dir);
  }
}

function signal(target: number, name: NodeJS.Signals): void {
  try {
    process.kill(target, name);
  } catch {
    // already gone
  }
}
