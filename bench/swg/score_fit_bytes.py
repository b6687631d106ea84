"""The score-only kernels per ISA on reads whose pairs all fit 8-bit lanes, so no row is
recomputed: 3,000 random 150-250-nt reads (seed 11), `swg --distance score --kernel K`,
1 thread, 3 runs per kernel; prints GCUPS per CPU second and the matrix's digest, which
must be the same for every kernel.
    python3 bench/swg/score_fit_bytes.py avx512,avx2      (swg on PATH)
"""
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile


def write_reads(path):
    rng = random.Random(11)
    with open(path, "w") as handle:
        for i in range(3000):
            handle.write(">r%d\n%s\n" % (i, "".join(rng.choice("ACGT") for _ in range(rng.randint(150, 250)))))


def timed_run(fasta, output, kernel):
    """(cells, CPU seconds, the kernel swg reports) of one 1-thread run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    stdout = subprocess.run(["swg", "--input", fasta, "--output", output, "--distance", "score", "--kernel", kernel],
                            env=dict(os.environ, OMP_NUM_THREADS="1"), check=True, stdout=subprocess.PIPE,
                            text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    lines = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    cells = next(line["cells"] for line in lines if line.get("phase") == "done")
    return cells, cpu, next(line["kernel"] for line in lines if "kernel" in line)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        fasta, output = os.path.join(tmp, "random.fasta"), os.path.join(tmp, "score.bin")
        write_reads(fasta)
        for kernel in sys.argv[1].split(","):
            for _ in range(3):
                cells, cpu, used = timed_run(fasta, output, kernel)
                with open(output, "rb") as handle:
                    digest = hashlib.sha256(handle.read()).hexdigest()[:16]
                print(f"{kernel} ({used}): {cells:.4g} cells, {cpu:.2f} CPU s, {cells / cpu / 1e9:.2f} GCUPS per core, "
                      f"matrix {digest}", flush=True)


if __name__ == "__main__":
    main()
