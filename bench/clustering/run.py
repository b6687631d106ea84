#!/usr/bin/env python3
"""Clustering accuracy on planted sequence families: the pipeline's own programs
(swg -> dapwc) against average-linkage agglomerative clustering of the same
matrix, VSEARCH --cluster_size and CD-HIT-EST on the same FASTA, scored by the
adjusted Rand index (ARI) against the true families; plus each tool's time on the
4,640 real reads of ../shared/data/16s-4640.fasta.

Family sets (kernels/dapwc/tests/families.py): 6 families of 12-60 members grown
from real reads at least 15 % apart, at 2, 4 and 8 % mutation (substitutions and
indels), several seeds; and 5 random-ancestor families of 40 (100 nt, 4 %).

Real reads have no planted answer, and their groups nest (species in genera in
orders), so there the question is whether a cap on the cluster count merges groups
that a peer separates: dapwc at several caps on the first distance's matrix of the
4,640 reads (and of its first 800) against VSEARCH at 80 % identity, over the reads
in VSEARCH clusters of at least 25.

    bash bench/clustering/run.sh [--seeds 1,2,3,4,5] [--distances global,shorter,spidal,score] [--bin DIR]
                                 [--baseline DIR --baseline-name NAME] [--results FILE]

--baseline runs another build's swg (its default distance) and dapwc on the same sets
in the same run (e.g. the commit before the DA-PWC fixes), as the column `before`.
scikit-learn's digits (Euclidean distances, 10 clusters) are clustered too, by dapwc,
the baseline's dapwc and average linkage.

Writes bench/results/clustering.md (or --results); working files go to bench/out/clustering/.
"""
import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import subprocess
import sys

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from sklearn.metrics import adjusted_rand_score, silhouette_samples

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "dapwc", "tests"))
import families  # noqa: E402

OUT = os.path.join(ROOT, "bench", "out", "clustering")
RESULTS = os.path.join(ROOT, "bench", "results", "clustering.md")
REAL_READS = os.path.join(ROOT, "..", "shared", "data", "16s-4640.fasta")
VSEARCH_IDS = (0.97, 0.94, 0.90, 0.85, 0.80)
CDHIT_IDS = (0.97, 0.94, 0.90, 0.85, 0.80)
MAX_CLUSTERS = 20  # the gateway's default maxClusters (schema/src/jobTypes.ts)
CAPS = (8, 20, 30)
PEER_ID = 0.80
PEER_MIN_SIZE = 25
LOOSE_SILHOUETTE = 0.25  # schema/src/index.ts: no substantial structure (Kaufman & Rousseeuw)


def family_sets(seeds):
    """(name, records) per planted set."""
    sets = []
    for rate in (0.02, 0.04, 0.08):
        for seed in seeds:
            sets.append((f"real {rate:.0%} seed {seed}",
                         families.real_read_families(REAL_READS, 6, (12, 60), rate, seed)))
    for seed in seeds:
        sets.append((f"random 5x40 seed {seed}", families.random_ancestor_families(5, 40, 100, 0.04, seed)))
    return sets


def timed(command):
    """The finished process and its CPU seconds (user + system; on a shared machine
    these move less than wall time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(command, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: exit {result.returncode}: {result.stderr[-2000:]}")
    return result, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def swg(binaries, fasta, distance, n, tag=None):
    """The N×N distance matrix (float) swg writes for `fasta`."""
    matrix = fasta + f".{tag or distance}.bin"
    command = [os.path.join(binaries, "swg"), "--input", fasta, "--output", matrix]
    if distance != "default":
        command += ["--distance", distance]
    _, seconds = timed(command)
    return matrix, np.fromfile(matrix, dtype="<i2").reshape(n, n).astype(np.float64) / 32767.0, seconds


def dapwc(binaries, matrix, n, extra=(), max_clusters=MAX_CLUSTERS):
    """(labels, done line, seconds) of a dapwc run with the gateway's defaults."""
    labels_path = matrix + f".{max_clusters}.clusters"
    result, seconds = timed([os.path.join(binaries, "dapwc"), "--distances", matrix, "--points", str(n),
                             "--output", labels_path, "--max-clusters", str(max_clusters), *extra])
    done = json.loads(result.stdout.splitlines()[-1])
    labels = np.loadtxt(labels_path, dtype=int)[:, 1]
    return labels, done, seconds


def average_linkage(distances, clusters=None, cut=None):
    tree = linkage(squareform((distances + distances.T) / 2, checks=False), method="average")
    if clusters is not None:
        return fcluster(tree, clusters, criterion="maxclust")
    return fcluster(tree, cut, criterion="distance")


def uc_labels(uc_path, names):
    """Cluster number per sequence from a VSEARCH/UCLUST .uc file."""
    cluster = {}
    with open(uc_path) as f:
        for line in f:
            fields = line.split("\t")
            if fields[0] in ("S", "H"):
                cluster[fields[8].split()[0]] = int(fields[1])
    return np.array([cluster[name] for name in names])


def vsearch(fasta, identity, names):
    """Labels and CPU seconds of `vsearch --cluster_size` at `identity`."""
    uc = fasta + f".vsearch{identity}.uc"
    _, seconds = timed(["vsearch", "--cluster_size", fasta, "--id", str(identity), "--uc", uc,
                        "--threads", "1", "--quiet"])
    return uc_labels(uc, names), seconds


def cdhit_labels(clstr_path, names):
    cluster, current = {}, -1
    with open(clstr_path) as f:
        for line in f:
            if line.startswith(">Cluster"):
                current += 1
            else:
                cluster[line.split(">")[1].split("...")[0]] = current
    return np.array([cluster[name] for name in names])


def cdhit(fasta, identity, names):
    out = fasta + f".cdhit{identity}"
    # Word sizes as CD-HIT-EST's user guide advises for each identity range.
    word = 10 if identity >= 0.95 else 8 if identity >= 0.9 else 7 if identity >= 0.88 else 6 if identity >= 0.85 else 5
    _, seconds = timed(["cd-hit-est", "-i", fasta, "-o", out, "-c", str(identity), "-n", str(word),
                        "-d", "0", "-T", "1", "-M", "0"])
    return cdhit_labels(out + ".clstr", names), seconds


def evaluate(binaries, name, records, distances, baseline=None):
    """ARI of every method on one family set."""
    os.makedirs(OUT, exist_ok=True)
    fasta = os.path.join(OUT, name.replace(" ", "_").replace("%", "pc") + ".fasta")
    families.write_fasta(fasta, records)
    names = [r[0] for r in records]
    truth = np.array([r[2] for r in records])
    k = len(set(truth))
    n = len(records)
    row = {"set": name, "n": n, "families": k}
    for distance in distances:
        matrix, d, _ = swg(binaries, fasta, distance, n)
        labels, done, _ = dapwc(binaries, matrix, n)
        row[f"dapwc {distance}"] = adjusted_rand_score(truth, labels)
        row[f"dapwc {distance} clusters"] = int(done["clusters"])
        row[f"dapwc {distance} warnings"] = done.get("warnings", [])
        row[f"zeros {distance}"] = int(((d == 0) & (truth[:, None] != truth[None, :])).sum() // 2)
        row[f"average-k {distance}"] = adjusted_rand_score(truth, average_linkage(d, clusters=k))
        row[f"average-cut {distance}"] = adjusted_rand_score(truth, average_linkage(d, cut=0.3))
    if baseline:
        matrix, _, _ = swg(baseline, fasta, "default", n, tag="before")
        labels, done, _ = dapwc(baseline, matrix, n)
        row["before"] = adjusted_rand_score(truth, labels)
        row["before clusters"] = int(done["clusters"])
    for identity in VSEARCH_IDS:
        row[f"vsearch {identity}"] = adjusted_rand_score(truth, vsearch(fasta, identity, names)[0])
    for identity in CDHIT_IDS:
        row[f"cd-hit {identity}"] = adjusted_rand_score(truth, cdhit(fasta, identity, names)[0])
    return row


def digits(binaries, baseline):
    """ARI on scikit-learn's digits (1,797 x 64, Euclidean distances / max, 10 clusters)."""
    from scipy.spatial.distance import cdist
    from sklearn.datasets import load_digits
    x, y = load_digits(return_X_y=True)
    d = cdist(x, x)
    d /= d.max()
    os.makedirs(OUT, exist_ok=True)
    matrix = os.path.join(OUT, "digits.bin")
    np.trunc(d * 32767).astype("<i2").tofile(matrix)
    row = {"average-k": adjusted_rand_score(y, average_linkage(d, clusters=10))}
    for name, build in (("dapwc", binaries), ("before", baseline)):
        if build:
            labels, done, _ = dapwc(build, matrix, len(y), max_clusters=10)
            row[name] = adjusted_rand_score(y, labels)
            row[name + " clusters"] = int(done["clusters"])
    return row


def real_read_times(binaries, distances):
    """CPU seconds of each tool on the 4,640 real reads (1 thread each): swg per
    distance, dapwc on the first distance's matrix, VSEARCH and CD-HIT-EST."""
    os.makedirs(OUT, exist_ok=True)
    fasta = os.path.join(OUT, "16s-4640.fasta")
    records = families.read_fasta(REAL_READS)
    with open(fasta, "w") as f:
        for name, seq in records:
            f.write(f">{name}\n{seq}\n")
    names = [name for name, _ in records]
    n = len(records)
    times = {}
    for distance in reversed(distances):  # the first one last: its matrix is the one dapwc reads
        matrix, _, times[f"swg --distance {distance}"] = swg(binaries, fasta, distance, n)
    labels, done, seconds = dapwc(binaries, matrix, n)
    times[f"dapwc on the {distances[0]} matrix ({done['clusters']} clusters)"] = seconds
    for identity in (0.97, 0.85):
        labels, seconds = vsearch(fasta, identity, names)
        times[f"vsearch --cluster_size --id {identity} ({len(set(labels))} clusters)"] = seconds
        labels, seconds = cdhit(fasta, identity, names)
        times[f"cd-hit-est -c {identity} ({len(set(labels))} clusters)"] = seconds
    return times, (fasta, names, matrix)


def cap_agreement(binaries, fasta, names, matrix, distance):
    """Rows of dapwc at each cap against VSEARCH at PEER_ID, on all the real reads and
    on the first 800 (their block of the same matrix)."""
    rows = []
    for n in (800, len(names)):
        if n < len(names):
            part_fasta = fasta.replace(".fasta", f"-first{n}.fasta")
            families.write_fasta(part_fasta, [(name, seq, 0) for name, seq in families.read_fasta(fasta)[:n]])
            part_matrix = matrix.replace(".bin", f"-first{n}.bin")
            np.fromfile(matrix, dtype="<i2").reshape(len(names), -1)[:n, :n].tofile(part_matrix)
        else:
            part_fasta, part_matrix = fasta, matrix
        peer, _ = vsearch(part_fasta, PEER_ID, names[:n])
        d = np.fromfile(part_matrix, dtype="<i2").reshape(n, n).astype(np.float64) / 32767.0
        sizes = {c: int((peer == c).sum()) for c in set(peer)}
        kept = np.array([sizes[c] >= PEER_MIN_SIZE for c in peer])
        for cap in CAPS:
            labels, done, seconds = dapwc(binaries, part_matrix, n, max_clusters=cap)
            # dapwc's silhouettes per cluster against scikit-learn's on the same matrix and labels.
            samples = silhouette_samples(d, labels, metric="precomputed")
            theirs = np.array([samples[labels == k].mean() for k in range(1, done["clusters"] + 1)])
            rows.append({"n": n, "cap": cap, "clusters": int(done["clusters"]), "seconds": seconds,
                         "ari": adjusted_rand_score(peer[kept], labels[kept]), "covered": int(kept.sum()),
                         "peer clusters": sum(1 for c in sizes.values() if c >= PEER_MIN_SIZE),
                         "capped": any(w.startswith("capped at") for w in done.get("warnings", [])),
                         "silhouette": done["mean_silhouette"], "silhouette peer": float(samples.mean()),
                         "silhouette gap": float(np.abs(np.array(done["silhouette"]) - theirs).max()),
                         "loose": int((np.array(done["silhouette"]) <= LOOSE_SILHOUETTE).sum()),
                         "distance": distance})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def cpu_model():
    """Model name and the SIMD flags the kernels choose between."""
    model, flags = platform.processor(), []
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags"):
                flags = [x for x in line.split(":", 1)[1].split() if x in ("sse4_2", "avx2", "fma", "avx512f", "avx512bw")]
                break
    return f"{model}, flags {' '.join(flags)}"


def version(command, marker):
    """The first line of a tool's banner that contains `marker`."""
    result = subprocess.run(command, capture_output=True, text=True)
    lines = [line.strip() for line in (result.stdout + result.stderr).splitlines() if marker in line]
    return lines[0].strip("= ") if lines else "?"


def methods(distances, baseline):
    names = ["before"] if baseline else []
    for distance in distances:
        names += [f"dapwc {distance}", f"average-k {distance}", f"average-cut {distance}"]
    return names + [f"vsearch {i}" for i in VSEARCH_IDS] + [f"cd-hit {i}" for i in CDHIT_IDS]


def write_results(rows, digit_row, times, caps, distances, args):
    columns = methods(distances, args.baseline)
    lines = [
        "# Clustering accuracy on planted sequence families",
        "",
        f"Generated by `bash bench/clustering/run.sh {' '.join(sys.argv[1:])}` on {datetime.date.today()} "
        f"({cpu_model()}, {os.cpu_count()} cores; kernels built Release with the default portable flags, "
        "AVX2 chosen at run time; every tool on one thread).",
        f"Tools: {version(['vsearch', '--version'], 'vsearch v')}; {version(['cd-hit-est', '-h'], 'CD-HIT version')}.",
        "",
        "ARI against the true families (1 = exact). `dapwc X`: `swg --distance X` then dapwc with the",
        f"gateway's defaults (`--max-clusters {MAX_CLUSTERS}`); `average-k X`: scipy average linkage on the",
        "same matrix cut at the true number of families; `average-cut X`: the same tree cut at distance 0.3;",
        "`vsearch i`: `vsearch --cluster_size --id i`; `cd-hit i`: `cd-hit-est -c i` (word size as its guide advises).",
    ]
    if args.baseline:
        lines.append(f"`before`: {args.baseline_name} (its swg default distance, its dapwc), same sets, same run.")
    lines += [
        "`zeros`: pairs from different families at distance exactly 0, per distance.",
        "",
        "| set | N | " + " | ".join(columns) + " | dapwc clusters | zeros |",
        "| --- | --- | " + " | ".join("---" for _ in columns) + " | --- | --- |",
    ]
    for row in rows:
        clusters = ", ".join(str(row[f"dapwc {d} clusters"]) for d in distances)
        zeros = ", ".join(str(row[f"zeros {d}"]) for d in distances)
        lines.append(f"| {row['set']} | {row['n']} | " + " | ".join(f"{row[c]:.3f}" for c in columns) +
                     f" | {clusters} | {zeros} |")
    lines += ["", "Mean and minimum ARI over the sets (real: families grown from real reads, all rates and seeds):", "",
              "| method | real mean | real min | random-ancestor mean | random-ancestor min |",
              "| --- | --- | --- | --- | --- |"]
    for c in columns:
        real = [r[c] for r in rows if r["set"].startswith("real")]
        rand = [r[c] for r in rows if r["set"].startswith("random")]
        lines.append(f"| {c} | {np.mean(real):.3f} | {min(real):.3f} | {np.mean(rand):.3f} | {min(rand):.3f} |")
    warned = [(r["set"], d, w) for r in rows for d in distances for w in r[f"dapwc {d} warnings"]]
    lines += ["", "dapwc warnings:" + (" none." if not warned else "")]
    lines += [f"- {s} ({d}): {w}" for s, d, w in warned]
    lines += ["", "scikit-learn's digits (1,797 points, Euclidean distances, 10 clusters): ARI " +
              ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in digit_row.items()) + "."]
    if times:
        lines += ["", "Time on the 4,640 real reads (one thread each, CPU seconds: user + system):", "",
                  "| step | seconds |", "| --- | --- |"]
        lines += [f"| {name} | {seconds:.2f} |" for name, seconds in times.items()]
    if caps:
        lines += ["", f"Caps on real reads: dapwc (`--max-clusters` cap, on the `{caps[0]['distance']}` matrix) against "
                  f"`vsearch --cluster_size --id {PEER_ID}`, ARI over the reads in VSEARCH clusters of at least "
                  f"{PEER_MIN_SIZE}. `capped`: dapwc's warning that a cluster was still splitting at the cap. `silhouette`: "
                  "dapwc's mean over all reads (scikit-learn's `silhouette_samples` on the same matrix and labels); "
                  "`gap`: the largest difference between the two per cluster; `loose`: clusters with a mean silhouette "
                  f"≤ {LOOSE_SILHOUETTE}.", "",
                  "| reads | cap | dapwc clusters | capped | ARI vs VSEARCH | reads compared | VSEARCH clusters ≥ "
                  f"{PEER_MIN_SIZE} | silhouette (scikit-learn) | gap | loose | dapwc CPU s |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        lines += [f"| {r['n']} | {r['cap']} | {r['clusters']} | {'yes' if r['capped'] else 'no'} | {r['ari']:.3f} | "
                  f"{r['covered']} | {r['peer clusters']} | {r['silhouette']:.4f} ({r['silhouette peer']:.4f}) | "
                  f"{r['silhouette gap']:.1e} | {r['loose']} | {r['seconds']:.2f} |" for r in caps]
    lines.append("")
    with open(args.results, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1,2,3,4,5")
    parser.add_argument("--distances", default="global,shorter,spidal",
                        help="comma-separated swg --distance values; dapwc is timed on the first one's matrix")
    parser.add_argument("--bin", default=os.path.join(ROOT, "kernels", "build", "bin"))
    parser.add_argument("--baseline", help="bin directory of another build, run as the column `before`")
    parser.add_argument("--baseline-name", default="the baseline build")
    parser.add_argument("--no-times", action="store_true", help="skip the 4,640-read timings and caps")
    parser.add_argument("--results", default=RESULTS, help="the Markdown file to write")
    args = parser.parse_args()
    for tool in ("vsearch", "cd-hit-est"):
        if not shutil.which(tool):
            sys.exit(f"{tool} not found (bench/clustering/run.sh installs it)")
    os.environ["OMP_NUM_THREADS"] = "1"
    distances = args.distances.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = []
    for name, records in family_sets(seeds):
        rows.append(evaluate(args.bin, name, records, distances, args.baseline))
        print(json.dumps(rows[-1]), flush=True)
    digit_row = digits(args.bin, args.baseline)
    times, caps = {}, []
    if not args.no_times:
        times, real = real_read_times(args.bin, distances)
        caps = cap_agreement(args.bin, *real, distances[0])
    write_results(rows, digit_row, times, caps, distances, args)


if __name__ == "__main__":
    main()
