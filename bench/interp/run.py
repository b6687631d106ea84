#!/usr/bin/env python3
"""MI-MDS interpolation against the full pipeline on the same reads (issue 18).

Reads are grown in families from real reads of ../shared/data/16s-4640.fasta
(kernels/dapwc/tests/families.py, as bench/clustering). One `swg --distance global` run
gives the full N×N matrix; the full pipeline runs damds and dapwc on it. The interpolated
run takes a seeded random in-sample set of --sample reads, cuts its n×n matrix and the
(N−n)×n out-of-sample block from the same matrix (what swg's rectangular mode writes:
swg is deterministic per pair), runs damds and dapwc on the sample and `interp` for the
rest. Both maps are scored over all N(N−1)/2 pairs against the full matrix (normalised
stress Σ(δ − d)²/Σδ²) and by the ARI of their clusters against the planted families.
Per stage: wall and CPU seconds and peak resident memory (/usr/bin/time); swg's GCUPS
from its DP cells. The in-sample swg and the block are costed at the full run's measured
cells per second (their cells counted exactly), since they are cut, not aligned again.

    bash bench/interp/run.sh [--n 2000] [--sample 400] [--k 10] [--seed 1] [--bin DIR]
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

import numpy as np
from sklearn.metrics import adjusted_rand_score

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "dapwc", "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench", "clustering"))
import families  # noqa: E402
from run import cpu_model  # noqa: E402  (bench/clustering/run.py)

OUT = os.path.join(ROOT, "bench", "out", "interp")
RESULTS = os.path.join(ROOT, "bench", "results", "interp-n{n}-s{sample}.md")
REAL_READS = os.path.join(ROOT, "..", "shared", "data", "16s-4640.fasta")
MAX_CLUSTERS = 8  # the gateway's default maxClusters
SUBSET = 3000  # reads whose pairs estimate the stress over all pairs (scale.py)


RANKS = 1  # --ranks: MPI ranks per program (mpirun, as the gateway's local backend launches them)


def stage(command, env=None):
    """(stdout, wall s, cpu s of all ranks, peak MB of the largest process) of one program run under /usr/bin/time."""
    stats = os.path.join(OUT, f"time-{os.getpid()}.txt")
    if RANKS > 1:
        command = ["mpirun", *(["--allow-run-as-root"] if os.getuid() == 0 else []), "--oversubscribe",
                   "--bind-to", "none", "-np", str(RANKS), *command]
    result = subprocess.run(["/usr/bin/time", "-o", stats, "-f", "%e %U %S %M", *command], capture_output=True,
                            text=True, env=dict(os.environ, OMP_NUM_THREADS="1", **(env or {})))
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: exit {result.returncode}: {result.stderr[-2000:]}")
    wall, user, system, kb = open(stats).read().split()[-4:]
    return result.stdout, float(wall), float(user) + float(system), int(kb) / 1024


def planted_reads(n, family_count, rate, seed):
    """n reads (name, sequence, family) in families of equal size grown from real reads ≥ 15 % apart."""
    size = n // family_count
    return families.real_read_families(REAL_READS, family_count, (size, size), rate, seed)[:n]


def write_matrix(path, values):
    values.astype("<i2").tofile(path)
    return path


def normalised_stress(stored, points, rows=512):
    """Σ_{i<j} (δ − d)² / Σ δ², δ from the stored int16 matrix, in blocks of rows."""
    num = den = 0.0
    for first in range(0, len(points), rows):
        block = slice(first, min(first + rows, len(points)))
        delta = stored[block].astype(np.float64) / 32767.0
        d = np.sqrt(((points[block, None, :] - points[None, :, :]) ** 2).sum(-1))
        upper = np.arange(len(points))[None, :] > np.arange(block.start, block.stop)[:, None]
        num += float((((delta - d) ** 2) * upper).sum())
        den += float(((delta ** 2) * upper).sum())
    return num / den


def pair_subset(n, size, seed):
    """The seeded random reads whose pairs estimate the stress over all pairs where no N×N matrix exists (scale.py)."""
    return np.sort(np.random.default_rng(seed).choice(n, size=min(size, n), replace=False))


def subset_stress(stored, points, subset):
    return normalised_stress(stored[np.ix_(subset, subset)], points[subset])


def load_points(path, n):
    rows = np.loadtxt(path)
    assert len(rows) == n and (rows[:, 0] == np.arange(n)).all(), path
    return rows[:, 1:4]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--sample", type=int, default=400)
    parser.add_argument("--families", type=int, default=8)
    parser.add_argument("--rate", type=float, default=0.04)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bin", default=os.path.join(ROOT, "kernels", "build", "bin"))
    parser.add_argument("--align", action="store_true", help="run swg --query for the block (else cost it)")
    parser.add_argument("--placement", default="", help="M,M,...: also time interp placing M points into the full map")
    parser.add_argument("--ranks", type=int, default=1)
    args = parser.parse_args()
    global RANKS
    RANKS = args.ranks
    # The full pipeline's files are shared by every sample size of one N (full.json: its figures, so a
    # second sample size reuses them); each sample size has its own folder: runs may overlap.
    fulldir, workdir = os.path.join(OUT, f"n{args.n}"), os.path.join(OUT, f"n{args.n}-s{args.sample}")
    for folder in (fulldir, workdir):
        os.makedirs(folder, exist_ok=True)
    at = lambda name: os.path.join(workdir, name)
    full_at = lambda name: os.path.join(fulldir, name)
    tool = lambda name: os.path.join(args.bin, name)
    n_total, n = args.n, args.sample

    records = planted_reads(n_total, args.families, args.rate, args.seed)
    n_total = len(records)
    truth = np.array([r[2] for r in records])
    lengths = np.array([len(r[1]) for r in records], dtype=np.float64)
    # DP cells of all pairs i < j of a set (swg's count: length × length per pair), no N×N array.
    pair_cells = lambda l: float((l.sum() ** 2 - (l ** 2).sum()) / 2)

    def mds_and_pwc(matrix, points, prefix, name, rows):
        """damds and dapwc on one matrix, timed into rows[name ...]."""
        for program, flags in (("damds", ["--output", f"{prefix}-points.txt", "--seed", str(args.seed)]),
                               ("dapwc", ["--output", f"{prefix}-clusters.txt", "--max-clusters", str(MAX_CLUSTERS)])):
            _, wall, cpu, mb = stage([tool(program), "--distances", matrix, "--points", str(points), *flags])
            rows[f"{name} {program}"] = (wall, cpu, mb, None)

    if os.path.exists(full_at("full.json")):
        saved = json.load(open(full_at("full.json")))
        rows, full, cells_per_cpu_second = saved["rows"], saved["full"], saved["cells_per_cpu_second"]
    else:
        families.write_fasta(full_at("reads.fasta"), records)
        rows = {}
        out, wall, cpu, mb = stage([tool("swg"), "--input", full_at("reads.fasta"), "--output", full_at("full.bin"),
                                    "--distance", "global"])
        full_cells = float(json.loads(out.splitlines()[-1])["cells"])  # swg's own count of DP cells
        cells_per_cpu_second = full_cells / cpu
        rows["full swg"] = (wall, cpu, mb, full_cells / cpu / 1e9)
        mds_and_pwc(full_at("full.bin"), n_total, full_at("full"), "full", rows)
        full_labels = np.loadtxt(full_at("full-clusters.txt"), dtype=int)[:, 1]
        full = {"stress": normalised_stress(np.fromfile(full_at("full.bin"), dtype="<i2").reshape(n_total, n_total),
                                            load_points(full_at("full-points.txt"), n_total)),
                "ari": adjusted_rand_score(truth, full_labels), "clusters": len(set(full_labels))}
        json.dump({"rows": rows, "full": full, "cells_per_cpu_second": cells_per_cpu_second}, open(full_at("full.json"), "w"))
    stored = np.fromfile(full_at("full.bin"), dtype="<i2").reshape(n_total, n_total)
    full_points = full_at("full-points.txt")

    rng = np.random.default_rng(args.seed)
    sample = rng.choice(n_total, size=n, replace=False)
    outside = np.setdiff1d(np.arange(n_total), sample)
    np.savetxt(at("sample.txt"), sample, fmt="%d")
    write_matrix(at("in.bin"), stored[np.ix_(sample, sample)])
    write_matrix(at("block.bin"), stored[np.ix_(outside, sample)])
    in_cells = pair_cells(lengths[sample])
    block_cells = float(lengths[outside].sum() * lengths[sample].sum())
    rows["interp swg (sample, costed)"] = (None, in_cells / cells_per_cpu_second, None, None)
    if args.align:
        # swg's rectangular mode on the same reads: timed, and its block must equal the cut one.
        families.write_fasta(at("sample.fasta"), [records[i] for i in sample])
        families.write_fasta(at("rest.fasta"), [records[i] for i in outside])
        out, wall, cpu, mb = stage([tool("swg"), "--input", at("sample.fasta"), "--query", at("rest.fasta"),
                                    "--output", at("block-swg.bin"), "--distance", "global"])
        block_cells = float(json.loads(out.splitlines()[-1])["cells"])
        assert open(at("block-swg.bin"), "rb").read() == open(at("block.bin"), "rb").read(), "swg --query block differs"
        rows["interp swg --query block"] = (wall, cpu, mb, block_cells / cpu / 1e9)
    else:
        rows["interp swg block (costed)"] = (None, block_cells / cells_per_cpu_second, None, None)
    mds_and_pwc(at("in.bin"), n, at("in"), "interp (sample)", rows)
    out, wall, cpu, mb = stage([tool("interp"), "--points", at("in-points.txt"), "--clusters", at("in-clusters.txt"),
                                "--distances", at("block.bin"), "--in-sample", str(n),
                                "--out-of-sample", str(n_total - n), "--sample", at("sample.txt"),
                                "--output", at("points.txt"), "--clusters-output", at("clusters.txt"),
                                "--k", str(args.k)])
    interp_done = json.loads(out.splitlines()[-1])
    rows["interp placement"] = (wall, cpu, mb, None)
    points = load_points(at("points.txt"), n_total)
    labels = np.loadtxt(at("clusters.txt"), dtype=int)[:, 1]
    inter = {"stress": normalised_stress(stored, points), "ari": adjusted_rand_score(truth, labels),
             "clusters": len(set(labels))}
    # The estimate that scale.py makes at 100,000+ reads, here beside the exact figure.
    subset = pair_subset(n_total, SUBSET, args.seed)
    inter["stress_subset"] = subset_stress(stored, points, subset)
    full["stress_subset"] = subset_stress(stored, load_points(full_points, n_total), subset)
    for m in [int(v) for v in args.placement.split(",") if v]:
        # interp's cost per placed point with all N mapped points as the sample: the block's rows
        # are the full matrix's rows over and over (real distances), M of them.
        with open(at("tiled.bin"), "wb") as file:
            for first in range(0, m, n_total):
                file.write(stored[: min(n_total, m - first)].astype("<i2").tobytes())
        _, wall, cpu, mb = stage([tool("interp"), "--points", full_points, "--clusters", full_at("full-clusters.txt"),
                                  "--distances", at("tiled.bin"), "--in-sample", str(n_total), "--out-of-sample", str(m),
                                  "--output", at("tiled-points.txt"), "--clusters-output", at("tiled-clusters.txt"),
                                  "--k", str(args.k)])
        rows[f"placement only: {m} points into {n_total}"] = (wall, cpu, mb, None)
        os.remove(at("tiled.bin"))
    write_results(args, n_total, full, inter, rows, interp_done, cells_per_cpu_second)


def fmt(value, digits=1):
    return "–" if value is None else f"{value:.{digits}f}"


def write_results(args, n_total, full, inter, rows, interp_done, cells_per_cpu_second):
    full_cpu = sum(rows[k][1] for k in rows if k.startswith("full"))
    inter_cpu = sum(rows[k][1] for k in rows if k.startswith("interp "))
    lines = [
        f"# Interpolation (MI-MDS) against the full pipeline ({datetime.date.today()})",
        "",
        f"`bash bench/interp/run.sh --n {n_total} --sample {args.sample} --k {args.k} --seed {args.seed} --ranks {args.ranks}` on",
        f"{cpu_model()}; {args.ranks} MPI rank(s) of one thread per program, on a shared machine (CPU seconds",
        "are the figure to compare; wall seconds include waiting for the cores).",
        "",
        f"{n_total} reads in {args.families} families grown from real 16S reads at {args.rate:.0%} mutation;",
        f"interpolated from a random sample of {args.sample} (seed {args.seed}), k = {args.k}.",
        "",
        "| run | normalised stress, all pairs | ARI vs families | clusters |",
        "| --- | --- | --- | --- |",
        f"| full pipeline | {full['stress']:.4f} | {full['ari']:.4f} | {full['clusters']} |",
        f"| interpolated | {inter['stress']:.4f} | {inter['ari']:.4f} | {inter['clusters']} |",
        f"| ratio / difference | {inter['stress'] / full['stress']:.3f}× | {inter['ari'] - full['ari']:+.4f} | |",
        "",
        f"Stress over the pairs of {SUBSET} random reads only (scale.py's estimate where no N×N matrix exists): "
        f"full {full['stress_subset']:.4f}, interpolated {inter['stress_subset']:.4f} "
        f"({inter['stress_subset'] / full['stress_subset']:.3f}×).",
        "",
        f"interp's own stress over the placed points' {args.k} neighbour pairs: {interp_done['stress']:.4f}; "
        f"{interp_done['mean_iterations']:.1f} majorization updates per point on average.",
        "",
        "| stage | wall s | CPU s | peak MB | GCUPS (per CPU second) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, (wall, cpu, mb, gcups) in rows.items():
        lines.append(f"| {name} | {fmt(wall)} | {fmt(cpu)} | {fmt(mb, 0)} | {fmt(gcups, 2)} |")
    lines += ["", f"CPU seconds in all: full {full_cpu:.1f}, interpolated {inter_cpu:.1f} "
              f"({full_cpu / inter_cpu:.2f}× less). swg ran at {cells_per_cpu_second / 1e9:.2f} GCUPS per CPU second.", ""]
    with open(RESULTS.format(n=n_total, sample=args.sample), "w") as file:
        file.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
