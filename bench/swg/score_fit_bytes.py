"""The score-only kernels per ISA on reads whose pairs all fit 8-bit lanes, so no row is
recomputed: 3,000 random 150-250-nt reads (seed 11), `swg --distance score --kernel K`,
1 thread, 3 runs per kernel; prints GCUPS per CPU second and the matrix's digest, which
must be the same for every kernel.
    .local/venv-swg/bin/python bench/swg/score_fit_bytes.py --swg kernels/build/bin/swg avx512,avx2
"""
import argparse
import os
import random
import tempfile

from bench_swg import file_digest, run_swg


def write_reads(path):
    """Writes the reads; returns their DP cells over distinct pairs."""
    rng = random.Random(11)
    lengths = []
    with open(path, "w") as handle:
        for i in range(3000):
            lengths.append(rng.randint(150, 250))
            handle.write(">r%d\n%s\n" % (i, "".join(rng.choice("ACGT") for _ in range(lengths[-1]))))
    return (sum(lengths) ** 2 - sum(n * n for n in lengths)) // 2


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--swg", required=True)
    parser.add_argument("kernels", help="comma-separated swg --kernel names")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fasta, output = os.path.join(tmp, "random.fasta"), os.path.join(tmp, "score.bin")
        cells = write_reads(fasta)
        for kernel in args.kernels.split(","):
            for _ in range(3):
                _, cpu, used = run_swg(args.swg, fasta, output, 1, 1, ["--distance", "score", "--kernel", kernel])
                print(f"{kernel} ({used}): {cells:.4g} cells, {cpu:.2f} CPU s, {cells / cpu / 1e9:.2f} GCUPS per core, "
                      f"matrix {file_digest(output)[:16]}", flush=True)


if __name__ == "__main__":
    main()
