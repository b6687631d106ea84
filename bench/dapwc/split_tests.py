#!/usr/bin/env python3
"""DA-PWC split tests: the whole program with this build's split test (one Lanczos run
per tested cluster) against a build from before it (two power iterations per cluster,
as SPIDAL's DA-PWC does), same data, same run, the builds alternating. Reports wall
time, time in split tests, distance passes they took, clusters found, the ARI of each
build against the truth and between the two builds' labels.

Data: 8 Gaussian blobs at N = 4000 and 8000 (bench/dapwc/run.py's matrices, truth
kept beside them) and the 4640 real 16S reads through `swg --distance global` (the
gateway's sequence clustering; no truth, so only the ARI between builds).
1 rank × 2 threads, `--max-clusters 8`. Writes bench/results/dapwc-split-tests.md.

    .local/venv-clustering/bin/python bench/dapwc/split_tests.py --baseline DIR --baseline-name TEXT [--bin DIR] [--rounds 3]

(numpy and scikit-learn: the venv bench/clustering/run.sh makes)
"""
import argparse
import datetime
import importlib.util
import os
import subprocess

from sklearn.metrics import adjusted_rand_score

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "bench", "results", "dapwc-split-tests.md")
READS = os.path.join(ROOT, "..", "shared", "data", "16s-4640.fasta")


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


dapwc_run = load("dapwc_run", "bench/dapwc/run.py")
damds_stream = load("damds_stream", "bench/damds/stream.py")


def read_matrix(bin_dir):
    path = os.path.join(dapwc_run.OUT, "16s-4640-global.bin")
    if not os.path.exists(path):
        subprocess.run([os.path.join(bin_dir, "swg"), "--input", READS, "--output", path, "--distance", "global"],
                       check=True, capture_output=True)
    return path


def run(bin_dir, path, n, tag):
    output = os.path.join(dapwc_run.OUT, f"split-{tag}-{n}.txt")
    done, rss = dapwc_run.measured([os.path.join(bin_dir, "dapwc"), "--distances", path, "--points", str(n),
                                    "--output", output, "--max-clusters", "8"], 2)
    with open(output) as file:
        labels = [int(line.split()[1]) for line in file]
    return {"elapsed": done["elapsed"], "split": done["timings"]["split_tests"], "passes": done["eigen_passes"],
            "clusters": done["clusters"], "labels": labels, "rss": rss}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, "kernels", "build", "bin"))
    parser.add_argument("--baseline", required=True, help="bin directory of the build to compare against")
    parser.add_argument("--baseline-name", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    sets = [(f"8 blobs, N = {n}", dapwc_run.matrix_path(n), n) for n in (4000, 8000)]
    sets.append(("4640 16S reads, swg global", read_matrix(args.bin), 4640))
    load_before = os.getloadavg()[0]
    rows = []
    for name, path, n in sets:
        truth = None
        if os.path.exists(path + ".truth"):
            with open(path + ".truth") as file:
                truth = [int(line) for line in file]
        best = {}
        for _ in range(args.rounds):
            for tag, bin_dir in (("before", args.baseline), ("now", args.bin)):
                result = run(bin_dir, path, n, tag)
                if tag not in best or result["elapsed"] < best[tag]["elapsed"]:
                    best[tag] = result
        before, now = best["before"], best["now"]
        truth_ari = lambda r: f"{adjusted_rand_score(truth, r['labels']):.3f}" if truth else "–"
        rows.append(f"| {name} | {before['elapsed']:.2f} | {now['elapsed']:.2f} | "
                    f"**{before['elapsed'] / now['elapsed']:.2f}×** | {before['split']:.2f} | {now['split']:.2f} | "
                    f"{before['passes']} | {now['passes']} | {before['clusters']} | {now['clusters']} | "
                    f"{truth_ari(before)} | {truth_ari(now)} | {adjusted_rand_score(before['labels'], now['labels']):.3f} |")
        print(rows[-1], flush=True)

    lines = ["## DA-PWC split tests: Lanczos against power iterations", "",
             f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by "
             f"`bench/dapwc/split_tests.py` on {damds_stream.cpu_description()}; load average "
             f"{load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end. Whole `dapwc` runs, "
             f"1 rank × 2 threads, `--max-clusters 8`; the best of {args.rounds} runs per build, the builds "
             f"alternating. `before`: {args.baseline_name}. Times in seconds; passes are passes over the "
             "distance matrix spent in split tests.", "",
             "| data | before s | now s | speed-up | before split tests s | now split tests s | before passes | "
             "now passes | before clusters | now clusters | before ARI vs truth | now ARI vs truth | "
             "ARI between builds |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"] + rows
    with open(RESULTS, "w") as file:
        file.write("\n".join(lines) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
