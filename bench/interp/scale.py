#!/usr/bin/env python3
"""Reads and scores for the interpolation scale runs (issue 18 part 5), where no N×N matrix exists.

    scale.py reads N FASTA [--seed 1]         planted reads (run.py's families), family in each id (s<i>_f<family>)
    scale.py score FASTA POINTS CLUSTERS [--pairs 3000] [--bin DIR]

`score` prints JSON: the ARI of the clusters against the planted families over all N points, and
the normalised stress Σ(δ − d)²/Σδ² over all pairs among a seeded random subset of --pairs reads
(their δ from one `swg --distance global` run over the subset): an estimate of the stress over all
N(N − 1)/2 pairs, which at 100,000 reads would need 5·10⁹ alignments.
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import tempfile

import numpy as np
from sklearn.metrics import adjusted_rand_score

# bench/interp/run.py under its own name: it imports bench/clustering/run.py as `run`.
_spec = importlib.util.spec_from_file_location("interp_run", os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.py"))
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)
families = run.families


def planted_family(read_id):
    return int(re.fullmatch(r"s\d+_f(\d+)", read_id).group(1))


def score(args):
    records = families.read_fasta(args.fasta)
    truth = np.array([planted_family(name) for name, _ in records])
    points = run.load_points(args.points, len(records))
    labels = np.loadtxt(args.clusters, dtype=int)
    assert (labels[:, 0] == np.arange(len(records))).all(), args.clusters
    subset = np.sort(np.random.default_rng(args.seed).choice(len(records), size=min(args.pairs, len(records)), replace=False))
    with tempfile.TemporaryDirectory() as folder:
        fasta, matrix = os.path.join(folder, "subset.fasta"), os.path.join(folder, "subset.bin")
        families.write_fasta(fasta, [(*records[i], None) for i in subset])
        subprocess.run([os.path.join(args.bin, "swg"), "--input", fasta, "--output", matrix, "--distance", "global"],
                       check=True, capture_output=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
        stored = np.fromfile(matrix, dtype="<i2").reshape(len(subset), len(subset))
    print(json.dumps({"points": len(records), "ari": adjusted_rand_score(truth, labels[:, 1]),
                      "clusters": len(set(labels[:, 1])), "stress_pairs_of": len(subset),
                      "stress": run.normalised_stress(stored, points[subset])}))


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    reads = commands.add_parser("reads")
    reads.add_argument("n", type=int)
    reads.add_argument("fasta")
    reads.add_argument("--families", type=int, default=8)
    reads.add_argument("--rate", type=float, default=0.04)
    reads.add_argument("--seed", type=int, default=1)
    scored = commands.add_parser("score")
    scored.add_argument("fasta")
    scored.add_argument("points")
    scored.add_argument("clusters")
    scored.add_argument("--pairs", type=int, default=3000)
    scored.add_argument("--seed", type=int, default=1)
    scored.add_argument("--bin", default=os.path.join(run.ROOT, "kernels", "build", "bin"))
    args = parser.parse_args()
    if args.command == "reads":
        families.write_fasta(args.fasta, run.planted_reads(args.n, args.families, args.rate, args.seed))
    else:
        score(args)


if __name__ == "__main__":
    main()
