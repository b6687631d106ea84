"""How often `swg --distance score` recomputes rows on a FASTA file: the share of pairs whose
optimal local score reaches the byte lanes' ceiling, and the share of rows that do so in at
least one lane of a group, for groups of 32 and 64 lanes and column blocks of 256 and 1,024.
Groups as swg forms them (a block's columns by length), and grouped by similarity instead
(greedy: the shortest column left and the group's other columns it scores highest with,
using the true scores, so an upper bound for any cheaper similarity).
    .local/venv-swg/bin/python bench/swg/saturation.py --swg kernels/build/bin/swg \
        --fasta ../shared/data/16s-4640.fasta
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np
import parasail

BYTE_CEILING = 255  # score_ceiling<ScoreBytes>: bytes hold H − 128 (251, 255 less a bias, before 2026-11-27)


def read_fasta(path):
    seqs = []
    with open(path) as handle:
        for line in handle:
            line = line.strip()
            if line.startswith(">"):
                seqs.append([])
            elif line:
                seqs[-1].append(line.upper())
    return ["".join(s) for s in seqs]


def pair_scores(swg, fasta, seqs):
    """S(a, b) recovered from swg's stored score distance and the self scores (to within 1)."""
    self_scores = np.array([parasail.sw_striped_16(s, s, 16, 4, parasail.nuc44).score for s in seqs], dtype=float)
    with tempfile.TemporaryDirectory() as tmp:
        output = os.path.join(tmp, "score.bin")
        subprocess.run([swg, "--input", fasta, "--output", output, "--distance", "score"], check=True,
                       stdout=subprocess.DEVNULL)
        stored = np.fromfile(output, dtype="<i2").reshape(len(seqs), len(seqs))
    return (1 - stored / 32767) * (self_scores[:, None] + self_scores[None, :]) / 2


def groups_by_length(columns, width, lengths):
    order = sorted(columns, key=lambda j: lengths[j])
    return [order[k:k + width] for k in range(0, len(order), width)]


def groups_by_similarity(columns, width, lengths, scores):
    left = sorted(columns, key=lambda j: lengths[j])
    groups = []
    while left:
        seed, rest = left[0], left[1:]
        picked = [rest[k] for k in np.argsort(-scores[seed, rest], kind="stable")[:width - 1]]
        groups.append([seed] + picked)
        taken = set(groups[-1])
        left = [j for j in left if j not in taken]
    return groups


def saturated_row_share(saturated, groups_of_block, n, block):
    rows = total = 0
    for start in range(0, n, block):
        for group in groups_of_block(list(range(start, min(n, start + block)))):
            rows += saturated[:, group].any(axis=1).sum()
            total += n
    return rows / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--swg", required=True)
    parser.add_argument("--fasta", required=True)
    args = parser.parse_args()
    seqs = read_fasta(args.fasta)
    n, lengths = len(seqs), [len(s) for s in seqs]
    scores = pair_scores(args.swg, args.fasta, seqs)
    saturated = scores >= BYTE_CEILING - 0.5
    np.fill_diagonal(saturated, False)
    print(f"{n} sequences; pairs reaching the byte ceiling: {saturated.mean():.1%}")
    print("| lanes | block | rows saturated, by length (swg) | by similarity (true scores) |")
    print("| ---: | ---: | ---: | ---: |")
    for width in (32, 64):
        for block in (256, 1024):
            by_length = saturated_row_share(saturated, lambda c: groups_by_length(c, width, lengths), n, block)
            by_similarity = saturated_row_share(
                saturated, lambda c: groups_by_similarity(c, width, lengths, scores), n, block)
            print(f"| {width} | {block} | {by_length:.0%} | {by_similarity:.0%} |")


if __name__ == "__main__":
    main()
