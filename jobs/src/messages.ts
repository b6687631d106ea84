// What a user reads of a failed stage: the program's own message first, without the
// MPI launcher's banners and without the server's paths (the job directory, the
// programs' location), which are no business of the user and leak the deployment.

/** OpenMPI frames its notices between rules of dashes. */
const RULE = /^-{20,}$/;
/** Lines of the launcher or the scheduler rather than the program. */
const LAUNCHER = /^(\[[^\]]*\]|mpirun\b|prterun\b|prte\b|orterun\b|srun:|slurmstepd:)/;
const MAX_CHARS = 500;

/** Absolute paths shortened to their last component ("/data/jobs/x/dist.bin" → "dist.bin"). */
export function redactPaths(text: string): string {
  return text.replace(/(^|[\s'"(=:,])\/(?:[^\s'"():,/]+\/)*([^\s'"():,/]+)/g, '$1$2');
}

/** The program's lines of a stage's stderr tail, launcher notices dropped, paths shortened. */
export function programMessage(stderr: string): string {
  const kept: string[] = [];
  let inNotice = false;
  for (const raw of stderr.split('\n')) {
    const line = raw.trim();
    if (RULE.test(line)) {
      inNotice = !inNotice;
      continue;
    }
    if (!inNotice && line && !LAUNCHER.test(line)) kept.push(line);
  }
  return redactPaths(kept.join('\n')).slice(0, MAX_CHARS);
}

/** A failed program's error: its message, then how it ended. */
export function exitError(stderr: string, exitCode: number, timeLimitSeconds: number | null): string {
  const message = programMessage(stderr);
  const how = timeLimitSeconds !== null
    ? `stopped at the wall-time limit of ${timeLimitSeconds} s (JOB_STAGE_TIME_LIMIT)`
    : `exit code ${exitCode}`;
  return message ? `${message} (${how})` : how;
}
