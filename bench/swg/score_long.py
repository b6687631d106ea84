"""`swg --distance score` on long similar sequences, whose scores pass the 16-bit lanes
(32,767): eight 8-kb DNA sequences, each its ancestor with 3 % of sites redrawn (seed 3),
so every pair scores about 35,000. Times this build against a baseline build on the same
file (2 threads, alternating), checks that their matrices are byte-identical, and checks every
stored value against parasail's local scores (`sw_striped_32`, pair and self scores) as a peer.
    .local/venv-swg/bin/python bench/swg/score_long.py --swg kernels/build/bin/swg --baseline OTHER/swg
"""
import argparse
import hashlib
import json
import os
import random
import subprocess
import tempfile
import time

import numpy as np
import parasail

from bench_swg import read_fasta, stored_score_distance


def write_sequences(path, count=8, length=8000, redrawn=0.03):
    rng = random.Random(3)
    ancestor = [rng.choice("ACGT") for _ in range(length)]
    with open(path, "w") as handle:
        for k in range(count):
            sequence = "".join(rng.choice("ACGT") if rng.random() < redrawn else c for c in ancestor)
            handle.write(f">g{k}\n{sequence}\n")


def timed(swg, fasta, output):
    """(wall seconds, cells, matrix digest) of one run."""
    start = time.perf_counter()
    stdout = subprocess.run([swg, "--input", fasta, "--output", output, "--distance", "score"], check=True,
                            env=dict(os.environ, OMP_NUM_THREADS="2"), stdout=subprocess.PIPE, text=True).stdout
    wall = time.perf_counter() - start
    cells = next(json.loads(line)["cells"] for line in stdout.splitlines() if '"phase":"done"' in line)
    with open(output, "rb") as handle:
        return wall, cells, hashlib.sha256(handle.read()).hexdigest()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--swg", required=True)
    parser.add_argument("--baseline", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fasta, output = os.path.join(tmp, "long.fasta"), os.path.join(tmp, "score.bin")
        write_sequences(fasta)
        for k in range(args.rounds):
            base_wall, cells, base_digest = timed(args.baseline, fasta, output)
            wall, _, digest = timed(args.swg, fasta, output)
            print(f"round {k + 1}: baseline {base_wall:.1f} s ({cells / base_wall / 1e9:.3f} GCUPS), this build "
                  f"{wall:.1f} s ({cells / wall / 1e9:.3f} GCUPS): {base_wall / wall:.1f}x, matrices "
                  f"{'identical' if digest == base_digest else 'DIFFER'}", flush=True)
        print(f"parasail agrees on {peer_agreement(fasta, output)} pairs")


def peer_agreement(fasta, output):
    """How many of the matrix's pairs parasail's scores give the same stored value, as "k of n"."""
    _, seqs = read_fasta(fasta)
    n = len(seqs)
    matrix = np.fromfile(output, dtype="<i2").reshape(n, n)

    def score(a, b):
        return parasail.sw_striped_32(a, b, 16, 4, parasail.nuc44).score

    self_scores = [score(s, s) for s in seqs]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    same = sum(int(stored_score_distance(score(seqs[i], seqs[j]), self_scores[i], self_scores[j]) == matrix[i, j])
               for i, j in pairs)
    return f"{same} of {len(pairs)}"


if __name__ == "__main__":
    main()
