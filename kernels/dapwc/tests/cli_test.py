#!/usr/bin/env python3
"""End-to-end tests of the dapwc program: planted clusters recovered, the same
files from 1 and 2 ranks and from a matrix streamed from disk, config.properties with a big-endian matrix, the
minimum cluster size and its warning, medoids without a layout, and bad inputs
rejected with a message, a non-zero exit and no output file.

usage: cli_test.py DAPWC DAPWC_TESTDATA MPIEXEC
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

DAPWC, TESTDATA, MPIEXEC = sys.argv[1:4]
MPI_FLAGS = ["-np", "2", "--allow-run-as-root", "--oversubscribe"]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def run(args, ranks=1, threads=1):
    command = ([MPIEXEC] + MPI_FLAGS if ranks == 2 else []) + [DAPWC] + args
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)


def score(truth, labels):
    out = subprocess.run([TESTDATA, "score", truth, labels], capture_output=True, text=True, check=True).stdout
    fields = dict(item.split("=") for item in out.split())
    return float(fields["ari"]), int(fields["clusters"])


def read(path):
    with open(path) as f:
        return f.read()


def check_silhouettes(matrix, n, clusters, silhouettes, done):
    """The --silhouettes file against silhouettes summed pair by pair here, and the done line's
    per-cluster means against the file."""
    with open(matrix, "rb") as f:
        d = struct.unpack(f"<{n * n}h", f.read())
    labels = [int(line.split()[1]) for line in read(clusters).splitlines()]
    got = {int(i): float(s) for i, s in (line.split() for line in read(silhouettes).splitlines())}
    check(sorted(got) == list(range(n)), "one silhouette per point, by index")
    members = {}
    for p, label in enumerate(labels):
        members.setdefault(label, []).append(p)
    worst, sums = 0.0, {}
    for p, own in enumerate(labels):
        mean = {k: sum(d[p * n + q] for q in m if q != p) / 32767 / (len(m) - (k == own)) for k, m in members.items()}
        a, b = mean[own], min(v for k, v in mean.items() if k != own)
        expected = (b - a) / max(a, b) if len(members[own]) > 1 else 0.0
        worst = max(worst, abs(got[p] - expected))
        sums[own] = sums.get(own, 0.0) + got[p]
    check(worst < 1e-9, f"silhouettes within 1e-9 of the definition (largest gap {worst:.2e})")
    per_cluster = [sums[k] / len(members[k]) for k in sorted(members)]
    check(all(abs(x - y) < 1e-8 for x, y in zip(per_cluster, done["silhouette"])) and len(per_cluster) == len(done["silhouette"]),
          f"the done line's silhouettes are the file's means: {done['silhouette']} against {per_cluster}")
    check(min(per_cluster) > 0.5, f"well-separated planted blobs have high silhouettes: {per_cluster}")


def test_planted_clusters_one_and_two_ranks(work):
    data = os.path.join(work, "blobs")
    subprocess.run([TESTDATA, "blobs", "5", "60", "7", data], check=True)
    outputs = {}
    for ranks, threads in ((1, 2), (2, 1)):
        clusters = os.path.join(work, f"clusters{ranks}.txt")
        centers = os.path.join(work, f"centers{ranks}.txt")
        silhouettes = os.path.join(work, f"silhouettes{ranks}.txt")
        result = run(["--distances", data + ".bin", "--points", "300", "--output", clusters,
                      "--points-3d", data + ".points", "--centers", centers, "--silhouettes", silhouettes], ranks, threads)
        check(result.returncode == 0, f"{ranks} ranks: exit {result.returncode}: {result.stderr}")
        if result.returncode != 0:
            return
        lines = [json.loads(line) for line in result.stdout.splitlines()]
        check(all(line["program"] == "dapwc" for line in lines), "every progress line is a dapwc JSON object")
        check(lines[0]["phase"] == "loaded" and lines[-1]["phase"] == "done", "loaded ... done")
        check(any(line["phase"] == "split" for line in lines), "split events are reported")
        check(all("temperature" in line and "clusters" in line for line in lines[1:-1]),
              "anneal lines carry temperature and clusters")
        fractions = [line["fraction"] for line in lines[1:-1]]
        check(all(0 <= f <= 1 for f in fractions) and fractions == sorted(fractions) and fractions[0] < 0.5,
              f"anneal lines carry a non-decreasing fraction in 0..1 for the job page's bar: {fractions[:3]}...{fractions[-3:]}")
        check(lines[-1]["clusters"] == 5 and lines[-1]["ranks"] == ranks, f"done line: {lines[-1]}")
        ari, count = score(data + ".truth", clusters)
        check(ari >= 0.95 and count == 5, f"{ranks} ranks: ARI {ari}, {count} clusters")
        outputs[ranks] = (read(clusters), read(centers), read(silhouettes))
        check_silhouettes(data + ".bin", 300, clusters, silhouettes, lines[-1])

    check(outputs[1] == outputs[2], "1 and 2 ranks give the same clusters, centres and silhouettes")
    labels = {int(i): int(l) for i, l in (line.split() for line in outputs[1][0].splitlines())}
    truth = {int(i): int(l) for i, l in (line.split() for line in read(data + ".truth").splitlines())}
    center_lines = outputs[1][1].splitlines()
    check(len(center_lines) == 5, "one centres line per cluster")
    for line in center_lines:
        label, count, medoid, euclidean, nearest = (int(x) for x in line.split()[:5])
        check(count == 60, f"cluster {label} has {count} points")
        check(labels[medoid] == label and labels[euclidean] == label and labels[nearest] == label,
              f"centres of cluster {label} are its members")
        check(truth[medoid] == truth[euclidean] == truth[nearest], f"centres of cluster {label} share a blob")


def test_streamed_like_in_memory(work):
    """A matrix streamed from disk (--memory-limit far below its rows: blocks of 16 rows
    read while the pass runs) gives the same files and progress as in memory, with
    missing distances and a non-zero diagonal in the file, on 1 and 2 ranks."""
    data = os.path.join(work, "streamed")
    subprocess.run([TESTDATA, "blobs", "5", "60", "11", data], check=True)
    n = 300
    matrix = bytearray(read_bytes(data + ".bin"))
    def put(i, j, value):
        matrix[2 * (i * n + j):2 * (i * n + j) + 2] = value.to_bytes(2, "little", signed=True)
    missing = {(i, j) for k in range(40) for i, j in [((k * 37) % n, (k * 101 + 7) % n)] if i != j}
    for i, j in missing:
        put(i, j, -1)
        put(j, i, -1)
    for i in range(0, n, 7):
        put(i, i, 1234)
    with open(data + ".bin", "wb") as f:
        f.write(matrix)
    runs = {}
    for name, ranks, threads, limit in (("memory", 1, 2, []), ("streamed", 1, 2, ["--memory-limit", "40K"]),
                                        ("streamed-np2", 2, 1, ["--memory-limit", "40K"])):
        clusters, centers = os.path.join(work, f"{name}.txt"), os.path.join(work, f"{name}.centers")
        result = run(["--distances", data + ".bin", "--points", str(n), "--output", clusters, "--centers", centers]
                     + limit, ranks, threads)
        check(result.returncode == 0, f"{name}: exit {result.returncode}: {result.stderr}")
        if result.returncode != 0:
            return
        lines = [json.loads(line) for line in result.stdout.splitlines()]
        check(lines[0]["streamed"] == bool(limit), f"{name}: loaded line {lines[0]}")
        check(lines[0]["missing_pairs"] == len(missing | {(j, i) for i, j in missing}),
              f"{name}: missing pairs {lines[0]['missing_pairs']}")
        # Progress without the clock and the fields that name the run (layout, output file).
        ignored = ("elapsed", "timings", "streamed", "ranks", "threads", "output")
        progress = [{k: v for k, v in line.items() if k not in ignored} for line in lines]
        runs[name] = (read(clusters), read(centers), progress)
    check(runs["memory"][2][-1]["clusters"] == 5, f"in memory: {runs['memory'][2][-1]}")
    for name in ("streamed", "streamed-np2"):
        check(runs[name][:2] == runs["memory"][:2], f"{name}: clusters or centres differ from the in-memory run")
        check(runs[name][2] == runs["memory"][2], f"{name}: progress lines differ from the in-memory run")


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def test_config_properties_big_endian(work):
    data = os.path.join(work, "big")
    subprocess.run([TESTDATA, "blobs", "4", "40", "3", data, "big"], check=True)
    output = os.path.join(work, "from-config.txt")
    config = os.path.join(work, "config.properties")
    with open(config, "w") as f:
        f.write(f"DistanceMatrixFile = {data}.bin\nNumberDataPoints = 160\nClusterFile = {output}\n"
                "MaxNcent = 2\nIsBigEndian = true\nUnrelatedKey = 1\n")
    result = run(["-c", config])
    check(result.returncode == 0, f"config run: exit {result.returncode}: {result.stderr}")
    if result.returncode == 0:
        check(score(data + ".truth", output)[1] == 2, "MaxNcent = 2 gives two clusters")
    # The command line overrides the file.
    result = run(["-c", config, "--max-clusters", "4"])
    check(result.returncode == 0 and score(data + ".truth", output) == (1.0, 4), "--max-clusters overrides MaxNcent")


def done_line(result):
    return json.loads(result.stdout.splitlines()[-1])


def test_min_cluster_size_and_warning(work):
    data = os.path.join(work, "three")
    subprocess.run([TESTDATA, "blobs", "3", "40", "5", data], check=True)
    output = os.path.join(work, "three.txt")
    args = ["--distances", data + ".bin", "--points", "120", "--output", output]
    # Default for N = 120: 3 points (SPIDAL's 25 would keep these, but not 3 x 20).
    result = run(args)
    check(result.returncode == 0, f"default size: exit {result.returncode}: {result.stderr}")
    if result.returncode == 0:
        loaded = json.loads(result.stdout.splitlines()[0])
        check(loaded["min_cluster_size"] == 3, f"loaded line: {loaded}")
        done = done_line(result)
        check(done["clusters"] == 3 and done["warnings"] == [], f"done line: {done}")
        check(score(data + ".truth", output) == (1.0, 3), "three blobs of 40 recovered")
    result = run(args + ["--min-cluster-size", "50"])
    check(result.returncode == 0, f"--min-cluster-size 50: exit {result.returncode}: {result.stderr}")
    if result.returncode == 0:
        done = done_line(result)
        check(done["clusters"] == 1 and done["removed"] == 2, f"done line: {done}")
        check(done["warnings"] == ["2 of 3 clusters dropped: under 50 points"], f"warnings: {done['warnings']}")


def test_medoids_without_layout(work):
    data = os.path.join(work, "medoids")
    subprocess.run([TESTDATA, "blobs", "4", "30", "9", data], check=True)
    output, centers = os.path.join(work, "medoids.txt"), os.path.join(work, "medoids.centers")
    result = run(["--distances", data + ".bin", "--points", "120", "--output", output, "--centers", centers])
    check(result.returncode == 0, f"--centers alone: exit {result.returncode}: {result.stderr}")
    if result.returncode != 0:
        return
    labels = [int(line.split()[1]) for line in read(output).splitlines()]
    lines = [[int(x) for x in line.split()] for line in read(centers).splitlines()]
    check([line[0] for line in lines] == [1, 2, 3, 4], f"one line per label: {lines}")
    for label, count, medoid in lines:
        check(labels[medoid] == label and labels.count(label) == count, f"medoid {medoid} of cluster {label}")


def expect_rejected(work, name, args, fragment, ranks=1):
    output = os.path.join(work, name + ".txt")
    result = run(args + ["--output", output], ranks)
    check(result.returncode != 0, f"{name}: exit code {result.returncode}")
    check(fragment in result.stderr, f"{name}: stderr {result.stderr!r} lacks {fragment!r}")
    check(not os.path.exists(output), f"{name}: output file written")


def test_bad_inputs(work):
    data = os.path.join(work, "bad")
    subprocess.run([TESTDATA, "blobs", "2", "10", "1", data], check=True)
    matrix, points = data + ".bin", data + ".points"
    expect_rejected(work, "wrong-size", ["--distances", matrix, "--points", "21"], "bytes")
    expect_rejected(work, "wrong-size-np2", ["--distances", matrix, "--points", "21"], "bytes", ranks=2)
    expect_rejected(work, "missing-points", ["--distances", matrix], "points")
    expect_rejected(work, "unreadable", ["--distances", os.path.join(work, "none.bin"), "--points", "20"], "none.bin")
    expect_rejected(work, "points-3d-alone", ["--distances", matrix, "--points", "20", "--points-3d",
                                              points], "--centers")
    with open(os.path.join(work, "short.points"), "w") as f:
        f.write("0 1 2 3\n")
    expect_rejected(work, "short-points", ["--distances", matrix, "--points", "20", "--points-3d",
                                           os.path.join(work, "short.points"), "--centers",
                                           os.path.join(work, "c.txt")], "1 points, expected 20")
    check(not os.path.exists(os.path.join(work, "c.txt")), "no centres file after a failure")
    zeros = os.path.join(work, "zeros.bin")
    with open(zeros, "wb") as f:
        f.write(bytes(2 * 20 * 20))
    expect_rejected(work, "all-zero", ["--distances", zeros, "--points", "20"], "all distances are zero")
    expect_rejected(work, "bad-max", ["--distances", matrix, "--points", "20", "--max-clusters", "0"],
                    "max-clusters")
    leftovers = [name for name in os.listdir(work) if ".tmp." in name]
    check(not leftovers, f"temporary files left behind: {leftovers}")


def main():
    with tempfile.TemporaryDirectory(prefix="dapwc-cli-") as work:
        test_planted_clusters_one_and_two_ranks(work)
        test_streamed_like_in_memory(work)
        test_config_properties_big_endian(work)
        test_min_cluster_size_and_warning(work)
        test_medoids_without_layout(work)
        test_bad_inputs(work)
    print(f"{len(failures)} failures" if failures else "all dapwc command-line checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
