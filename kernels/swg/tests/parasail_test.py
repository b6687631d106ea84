#!/usr/bin/env python3
"""swg's alignment statistics against parasail's, on random and related pairs.

parasail's sw_stats_* / nw_stats_* report the score, matches and length of one
optimal alignment of their own choosing (for local alignments the first cell that
reaches the best score, restarting on ties with zero). swg reports, among all
optimal alignments, the longest and then the one with the most identical columns
(kernels/swg/README.md). So on every pair the scores must be equal and swg's
(length, identical) must be at least parasail's; and swg stores distance 0 only
when the shorter sequence lies exactly, without gap, in the longer one.

Usage: parasail_test.py --pair-stats PATH/TO/swg_pair_stats   (run by ctest swg-parasail
through parasail_venv.sh, which provides parasail)
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

import parasail

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../common/tests"))
from checks import check, run_case  # noqa: E402

DNA, PROTEIN = "ACGT", "ARNDCQEGHILKMFPSTWYV"
# Issue 15's co-optimal example: 7 exact matches (35) inside 25 columns with 15 matches (35).
ISSUE_15 = ("AAAACCCCCTTTTTTTCCCCCAAAA", "AAAAGGGGGTTTTTTTGGGGGAAAA")


def make_pairs(letters, count, seed):
    """Unrelated pairs, relatives at 2-30 % substitutions with indels, and substrings."""
    rng = random.Random(seed)

    def random_sequence(length):
        return "".join(rng.choice(letters) for _ in range(length))

    def mutate(sequence, substitution, indel):
        out = []
        for residue in sequence:
            if rng.random() < indel / 2:
                continue
            out.append(rng.choice(letters) if rng.random() < substitution else residue)
            if rng.random() < indel / 2:
                out.append(rng.choice(letters))
        return "".join(out) or sequence[:1]

    pairs = []
    for k in range(count):
        a = random_sequence(rng.randint(10, 300))
        kind = k % 4
        if kind == 0:
            b = random_sequence(rng.randint(10, 300))
        elif kind == 3:  # an exact piece of a, sometimes all of it
            start = rng.randint(0, len(a) // 2)
            b = a[start:start + rng.randint(1, len(a))]
        else:
            b = mutate(a, rng.choice([0.02, 0.05, 0.1, 0.2, 0.3]), rng.choice([0.0, 0.02, 0.06]))
        pairs.append((a, b) if rng.random() < 0.5 else (b, a))
    return pairs


def swg_stats(pair_stats, pairs, alphabet, distance, tmp):
    fasta = os.path.join(tmp, "pairs.fasta")
    with open(fasta, "w") as handle:
        for k, (a, b) in enumerate(pairs):
            handle.write(f">a{k}\n{a}\n>b{k}\n{b}\n")
    out = subprocess.run([pair_stats, fasta, alphabet, distance], capture_output=True, text=True, check=True)
    rows = [tuple(map(int, line.split())) for line in out.stdout.splitlines()]
    check(len(rows) == len(pairs), f"swg_pair_stats printed {len(rows)} lines for {len(pairs)} pairs")
    return rows  # (score, identical, length, stored distance)


def compare(name, pairs, ours, theirs_function, open_cost, extend_cost, matrix):
    """Scores equal and swg's (length, identical) ≥ parasail's on every pair."""
    same = 0
    for k, ((a, b), (score, identical, length, _)) in enumerate(zip(pairs, ours)):
        theirs = theirs_function(a, b, open_cost, extend_cost, matrix)
        check(score == theirs.score, f"{name} pair {k}: swg score {score}, parasail {theirs.score}\n{a}\n{b}")
        check((length, identical) >= (theirs.length, theirs.matches),
              f"{name} pair {k}: swg (length {length}, identical {identical}) is shorter than parasail's "
              f"(length {theirs.length}, matches {theirs.matches})\n{a}\n{b}")
        same += (length, identical) == (theirs.length, theirs.matches)
    print(f"{name}: {len(pairs)} pairs, scores equal, swg's alignment never shorter; "
          f"same length and identical columns as parasail on {same} ({same / len(pairs):.1%})")


def check_zeros(name, pairs, ours, global_mode):
    for k, ((a, b), row) in enumerate(zip(pairs, ours)):
        shorter, longer = sorted((a, b), key=len)
        exact = a == b if global_mode else shorter in longer
        check((row[3] == 0) == exact, f"{name} pair {k}: stored distance {row[3]}, but exact containment is {exact}"
                                      f"\n{a}\n{b}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pair-stats", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dna_pairs = make_pairs(DNA, 1200, 15) + [ISSUE_15, ISSUE_15[::-1]]
        protein_pairs = make_pairs(PROTEIN, 400, 16)
        for alphabet, pairs, open_cost, extend_cost, matrix in [("dna", dna_pairs, 16, 4, parasail.nuc44),
                                                                ("protein", protein_pairs, 9, 1, parasail.blosum62)]:
            for distance, function in [("spidal", parasail.sw_stats_striped_32),
                                       ("global", parasail.nw_stats_striped_32)]:
                ours = swg_stats(args.pair_stats, pairs, alphabet, distance, tmp)
                name = f"{alphabet} {distance} vs parasail {function.__name__}"
                compare(name, pairs, ours, function, open_cost, extend_cost, matrix)
                check_zeros(name, pairs, ours, distance == "global")
            check_zeros(f"{alphabet} shorter", pairs, swg_stats(args.pair_stats, pairs, alphabet, "shorter", tmp), False)

        # The issue's example: parasail reports the 7 exact matches (distance 0); swg the 25 columns.
        example = swg_stats(args.pair_stats, [ISSUE_15], "dna", "spidal", tmp)[0]
        check(example == (35, 15, 25, 10 * 32767 // 25), f"issue 15 example: swg gives {example}")
        theirs = parasail.sw_stats_striped_32(*ISSUE_15, 16, 4, parasail.nuc44)
        print(f"issue 15 example: swg score 35, 15 identical of 25 columns; parasail score {theirs.score}, "
              f"{theirs.matches} matches of {theirs.length} columns")


if __name__ == "__main__":
    sys.exit(run_case("swg vs parasail", main))
