"""`swg --distance score` on long similar sequences, whose scores pass the 16-bit lanes
(32,767): eight 8-kb DNA sequences, each its ancestor with 3 % of sites redrawn (seed 3),
so every pair scores about 35,000. Times this build against a baseline build on the same
file (2 threads, alternating), checks that their matrices are byte-identical, and checks every
stored value against parasail's local scores (`sw_striped_32`, pair and self scores) as a peer.
    .local/venv-swg/bin/python bench/swg/score_long.py --swg kernels/build/bin/swg --baseline OTHER/swg
"""
import argparse
import os
import random
import tempfile

import numpy as np
import parasail

from bench_swg import file_digest, read_fasta, run_swg, stored_score_distance


def write_sequences(path, count=8, length=8000, redrawn=0.03):
    """Writes the sequences; returns their DP cells over distinct pairs."""
    rng = random.Random(3)
    ancestor = [rng.choice("ACGT") for _ in range(length)]
    with open(path, "w") as handle:
        for k in range(count):
            sequence = "".join(rng.choice("ACGT") if rng.random() < redrawn else c for c in ancestor)
            handle.write(f">g{k}\n{sequence}\n")
    return count * (count - 1) // 2 * length * length


def timed(swg, fasta, output):
    """(wall seconds, matrix digest) of one 2-thread run."""
    wall, _, _ = run_swg(swg, fasta, output, 2, 1, ["--distance", "score"])
    return wall, file_digest(output)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--swg", required=True)
    parser.add_argument("--baseline", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fasta, output = os.path.join(tmp, "long.fasta"), os.path.join(tmp, "score.bin")
        cells = write_sequences(fasta)
        for k in range(args.rounds):
            base_wall, base_digest = timed(args.baseline, fasta, output)
            wall, digest = timed(args.swg, fasta, output)
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
