// Local backend: mpirun on this machine, one session per stage (setsid), so a cancel
// finds every rank and the programs outlive a bridge restart.
import { spawn } from 'node:child_process';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { STAGE_FILES, exists } from '@wpv/jobs/workdir';
import { RUN_STAGE, mpirunArgv, stageEnv, type Backend, type BackendState, type Handle, type Submission } from './backend.ts';

const KILL_GRACE_MS = 5000;
/** How long a cancel waits for SIGKILLed processes to be gone. */
const KILL_WAIT_MS = 2000;

export class LocalBackend implements Backend {
  readonly kind = 'local';
  private onEnd: () => void = () => {};

  /** Programs share `slots` CPUs, each taking ranks × threads of them (all, if it asks for more); the others wait in run-stage.sh. */
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
      env: {
        ...process.env,
        ...stageEnv(s.command),
        WPV_SLOTS: String(this.slots),
        WPV_SLOTS_NEEDED: String(Math.min(s.command.ranks * s.command.threads, this.slots)),
        WPV_SLOT_DIR: this.slotDir,
      },
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
    const leader = Number(h.id);
    if (!(await this.alive(h))) return;
    // SIGTERM to the program's own processes, as Slurm's scancel signals every task. Not to
    // mpirun: Open MPI runs each rank in its own process group, and mpirun, signalled, aborts
    // the job and may drop the ranks' last output (a "cancelled" line) and cut their cleanup.
    // The ranks end, then mpirun, and the wrapper records the exit. Before the ranks exist
    // (waiting for a slot, mpirun starting), the wrapper's group has nothing to lose.
    const ranks = (await sessionMembers(leader)).filter((p) => p.group !== leader);
    if (ranks.length) for (const p of ranks) signal(p.pid, 'SIGTERM');
    else signal(-leader, 'SIGTERM');
    const deadline = Date.now() + KILL_GRACE_MS;
    while (Date.now() < deadline && (await this.alive(h))) await new Promise((r) => setTimeout(r, 100));
    // Whatever is left, ranks included: they are in the session, not in the wrapper's group.
    for (const p of await sessionMembers(leader)) signal(p.pid, 'SIGKILL');
    // A killed process lingers for a moment: return once only zombies are left.
    const gone = Date.now() + KILL_WAIT_MS;
    while (Date.now() < gone && (await sessionMembers(leader)).some((p) => p.state !== 'Z')) await new Promise((r) => setTimeout(r, 20));
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

/** The processes of a session (a stage's wrapper leads its own): process group and state (Z: ended, not yet reaped). */
export async function sessionMembers(session: number): Promise<{ pid: number; group: number; state: string }[]> {
  const members: { pid: number; group: number; state: string }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => ''); // ended meanwhile
    // After the command name, which may hold spaces and parentheses: state ppid pgrp session …
    const [state = '', , group, sid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(sid) === session) members.push({ pid: Number(entry), group: Number(group), state });
  }
  return members;
}

function signal(target: number, name: NodeJS.Signals): void {
  try {
    process.kill(target, name);
  } catch {
    // already gone
  }
}
