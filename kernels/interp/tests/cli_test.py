#!/usr/bin/env python3
"""End-to-end test of the interp program on planted 3-D points: damds maps an in-sample
set, interp places the rest from an out-of-sample × in-sample int16 block; the merged map
must keep the true distances over all pairs, the planted blobs as clusters, the input
order given by --sample, and each out-of-sample point's silhouette against the in-sample
clusters; 1 rank and 2 ranks × 2 threads agree; bad inputs exit 2.

Usage: cli_test.py --interp BIN --damds BIN --mpiexec MPIEXEC
"""
import argparse
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

MPI_FLAGS = ["--allow-run-as-root", "--oversubscribe"]
SCALE = 32767


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(command, ranks=1, threads=1, mpiexec=None):
    environment = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
    if ranks > 1:
        command = [mpiexec, "-np", str(ranks)] + MPI_FLAGS + command
    return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300)


def planted(seed, total, blobs=3):
    """Points in `blobs` well separated balls; distances stay below 1 (the int16 unit)."""
    rng = random.Random(seed)
    centres = [(0.1, 0.1, 0.1), (0.5, 0.1, 0.3), (0.2, 0.5, 0.4)][:blobs]
    points, labels = [], []
    for i in range(total):
        blob = i % blobs
        points.append([c + rng.uniform(-0.08, 0.08) for c in centres[blob]])
        labels.append(blob + 1)
    order = list(range(total))
    rng.shuffle(order)
    return [points[i] for i in order], [labels[i] for i in order]


def write_block(path, rows, columns, points):
    with open(path, "wb") as file:
        for i in rows:
            values = [round(math.dist(points[i], points[j]) * SCALE) for j in columns]
            file.write(struct.pack(f"<{len(values)}h", *values))


def read_indexed(path, total, columns):
    rows = []
    with open(path) as file:
        for expected, line in enumerate(file):
            fields = line.split()
            check(len(fields) == 1 + columns and int(fields[0]) == expected, f"{path}: bad line {line!r}")
            rows.append([float(v) for v in fields[1:]])
    check(len(rows) == total, f"{path}: {len(rows)} rows, expected {total}")
    return rows


def silhouette(distances, label, labels):
    """Rousseeuw's silhouette of a point with `distances` to points labelled `labels`, in cluster `label`."""
    means = {}
    for value in set(labels):
        members = [d for d, l in zip(distances, labels) if l == value]
        means[value] = sum(members) / len(members)
    a, b = means[label], min(m for value, m in means.items() if value != label)
    return (b - a) / max(a, b)


def normalised_stress(truth, mapped):
    num = den = 0.0
    for i in range(len(truth)):
        for j in range(i):
            delta = math.dist(truth[i], truth[j])
            num += (delta - math.dist(mapped[i], mapped[j])) ** 2
            den += delta * delta
    return num / den


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--interp", required=True)
    parser.add_argument("--damds", required=True)
    parser.add_argument("--mpiexec", required=True)
    args = parser.parse_args()
    total, n = 600, 200
    points, labels = planted(5, total)
    rng = random.Random(9)
    sample = sorted(rng.sample(range(total), n), key=lambda _: rng.random())  # any order
    outside = sorted(set(range(total)) - set(sample))
    with tempfile.TemporaryDirectory() as tmp:
        at = lambda name: os.path.join(tmp, name)
        write_block(at("in.bin"), sample, sample, points)
        write_block(at("block.bin"), outside, sample, points)
        with open(at("sample.txt"), "w") as file:
            file.writelines(f"{row}\n" for row in sample)
        with open(at("in-clusters.txt"), "w") as file:
            file.writelines(f"{i} {labels[row]}\n" for i, row in enumerate(sample))
        # A centres file as dapwc writes it: medoids as in-sample indices.
        medoids = {label: next(i for i, row in enumerate(sample) if labels[row] == label) for label in (1, 2, 3)}
        with open(at("in-centers.txt"), "w") as file:
            file.writelines(f"{label} 0 {medoids[label]}\n" for label in (1, 2, 3))
        # In-sample silhouettes are passed through: any values in [-1, 1] will do.
        in_silhouettes = [rng.uniform(-1, 1) for _ in sample]
        with open(at("in-silhouettes.txt"), "w") as file:
            file.writelines(f"{i} {s!r}\n" for i, s in enumerate(in_silhouettes))
        with open(at("bad-silhouettes.txt"), "w") as file:
            file.writelines(f"{i} {1.5 if i == 7 else 0.5}\n" for i in range(n))
        result = run([args.damds, "--distances", at("in.bin"), "--points", str(n), "--output", at("in-points.txt"),
                      "--seed", "3"])
        check(result.returncode == 0, f"damds failed: {result.stderr}")

        def interp(suffix, extra=(), ranks=1, threads=1):
            command = [args.interp, "--points", at("in-points.txt"), "--clusters", at("in-clusters.txt"),
                       "--distances", at("block.bin"), "--in-sample", str(n), "--out-of-sample", str(total - n),
                       "--sample", at("sample.txt"), "--output", at(f"points{suffix}.txt"),
                       "--clusters-output", at(f"clusters{suffix}.txt"), *extra]
            return run(command, ranks, threads, args.mpiexec)

        silhouette_options = ["--silhouettes", at("in-silhouettes.txt")]
        result = interp("", ["--centers", at("in-centers.txt"), "--centers-output", at("centers.txt"),
                             *silhouette_options, "--silhouettes-output", at("silhouettes.txt")])
        check(result.returncode == 0, f"interp failed: {result.stderr}")
        lines = [json.loads(line) for line in result.stdout.splitlines()]
        check(lines[-1]["phase"] == "done" and lines[-1]["interpolated"] == total - n, f"done line: {lines[-1]}")
        check(any(line.get("fraction") == 1.0 for line in lines), "no progress line with fraction 1")
        mapped = read_indexed(at("points.txt"), total, 3)
        clusters = [int(c[0]) for c in read_indexed(at("clusters.txt"), total, 1)]
        in_points = read_indexed(at("in-points.txt"), n, 3)
        # In-sample rows keep damds's coordinates at their input rows.
        check(all(mapped[row] == in_points[i] for i, row in enumerate(sample)), "in-sample points moved or misplaced")
        full = normalised_stress(points, mapped)
        in_only = normalised_stress([points[r] for r in sample], in_points)
        print(f"normalised stress: in-sample map {in_only:.2e}, all {total} points {full:.2e}")
        check(full < 1e-3, f"the interpolated map does not keep the planted distances: stress {full:.3e}")
        wrong = sum(clusters[row] != labels[row] for row in outside)
        check(wrong == 0, f"{wrong} interpolated points not in their planted blob")
        silhouettes = [s[0] for s in read_indexed(at("silhouettes.txt"), total, 1)]
        check(all(silhouettes[row] == in_silhouettes[i] for i, row in enumerate(sample)), "in-sample silhouettes changed")
        for row in outside:  # against the in-sample clusters, from the block's int16 distances
            expected = silhouette([round(math.dist(points[row], points[c]) * SCALE) for c in sample], clusters[row],
                                  [labels[c] for c in sample])
            check(abs(silhouettes[row] - expected) < 1e-12, f"row {row}: silhouette {silhouettes[row]}, expected {expected}")
            check(silhouettes[row] > 0.5, f"row {row}: silhouette {silhouettes[row]} in a planted blob")
        centres = [line.split() for line in open(at("centers.txt"))]
        for label, count, medoid in centres:
            check(int(medoid) == sample[medoids[int(label)]], f"centre {label}: medoid {medoid} is not its input row")
            check(int(count) == clusters.count(int(label)), f"centre {label}: count {count}")

        result = interp("-np2", [*silhouette_options, "--silhouettes-output", at("silhouettes-np2.txt")], ranks=2, threads=2)
        check(result.returncode == 0, f"interp -np 2 failed: {result.stderr}")
        for name in ("points", "clusters", "silhouettes"):
            check(open(at(f"{name}.txt")).read() == open(at(f"{name}-np2.txt")).read(),
                  f"{name}: 2 ranks × 2 threads differ from 1 × 1")

        # A quarter of 32K holds 20 rows of the block: 20 chunks, each read while the one before is placed.
        result = interp("-chunked", ["--memory-limit", "32K"], threads=2)
        check(result.returncode == 0, f"interp --memory-limit failed: {result.stderr}")
        placed = [json.loads(line) for line in result.stdout.splitlines() if '"placed"' in line]
        check([line["rows"] for line in placed] == list(range(20, total - n + 1, 20)), f"chunks: {placed[:3]}")
        for name in ("points", "clusters"):
            check(open(at(f"{name}.txt")).read() == open(at(f"{name}-chunked.txt")).read(),
                  f"{name}: 20-row chunks differ from one chunk")

        # Bad inputs: exit 2, the file and what is wrong named, no output left.
        with open(at("short.bin"), "wb") as file:
            file.write(b"\0" * 100)
        with open(at("twice.txt"), "w") as file:
            file.writelines(f"{row}\n" for row in [sample[0]] + sample[:-1])
        cases = [
            (["--distances", at("short.bin")], f"for a {total - n}×{n} int16 block, found 100"),
            (["--sample", at("twice.txt")], "twice.txt:2: expected a distinct input row"),
            (["--centers", at("in-centers.txt")], "--centers and --centers-output go together"),
            (silhouette_options, "--silhouettes and --silhouettes-output go together"),
            (["--silhouettes", at("bad-silhouettes.txt"), "--silhouettes-output", at("silhouettes-bad.txt")],
             "bad-silhouettes.txt:8: expected `index silhouette` (in [-1, 1])"),
            (["--k", "0"], "--k"),
            (["--memory-limit", "12T"], "--memory-limit must be a positive byte count"),
        ]
        for extra, message in cases:
            result = interp("-bad", extra)
            check(result.returncode == 2 and message in result.stderr, f"{extra}: exit {result.returncode}, {result.stderr!r}")
            check(not os.path.exists(at("points-bad.txt")), f"{extra}: output left behind")
    print("interp-cli: ok")


if __name__ == "__main__":
    try:
        main()
    except Failure as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
