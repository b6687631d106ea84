#!/usr/bin/env python3
"""End-to-end tests of the damds program: reference stress on damds-example, recovery
of points sampled in 3D, 1 vs 2 ranks and threads, and bad inputs.

Usage: cli_test.py CASE --damds BIN --mpiexec MPIEXEC --data DIR
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../common/tests"))
from checks import check, run_case  # noqa: E402

MPI_FLAGS = ["--allow-run-as-root", "--oversubscribe"]
REFERENCE = ["--alpha", "0.95", "--tmin-factor", "0.5", "--threshold", "1e-6", "--cg-iterations", "100",
             "--cg-threshold", "1e-5", "--dim", "3", "--big-endian", "--seed", "1"]


def run_damds(args, arguments, ranks=1, threads=1, expect_ok=True):
    environment = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
    command = [args.damds] + arguments
    if ranks > 1:
        command = [args.mpiexec, "-np", str(ranks)] + MPI_FLAGS + command
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300)
    if expect_ok:
        check(result.returncode == 0, f"damds failed ({result.returncode}): {result.stderr.strip()}")
    return result


def progress_lines(result):
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    check(lines and lines[-1]["phase"] == "done", "no final progress line")
    check(all(line["program"] == "damds" and "elapsed" in line for line in lines), "malformed progress line")
    return lines


def read_points(path, n, dim=3):
    points = []
    with open(path) as file:
        for expected_index, line in enumerate(file):
            fields = line.split()
            check(len(fields) == dim + 1 and int(fields[0]) == expected_index, f"bad output line: {line!r}")
            points.append([float(value) for value in fields[1:]])
    check(len(points) == n, f"{len(points)} points written, expected {n}")
    return points


def no_leftovers(path):
    directory, name = os.path.split(path)
    leftovers = [entry for entry in os.listdir(directory) if entry.startswith(name)]
    check(not leftovers, f"output or temporary files left behind: {leftovers}")


def example(args, name):
    path = os.path.join(args.data, "damds-example", name)
    check(os.path.isfile(path), f"reference data missing: {path} (expected ../shared/data from the repository root)")
    return path


def reference_stress(args, weighted):
    output = os.path.join(args.work, "reference.txt")
    arguments = ["--distances", example(args, "dist.bin"), "--points", "1000", "--output", output] + REFERENCE
    if weighted:
        arguments += ["--weights", example(args, "weight.bin")]
    done = progress_lines(run_damds(args, arguments, threads=2))[-1]
    expected = 0.020 if weighted else 0.040
    check(abs(done["stress"] - expected) <= 0.003, f"stress {done['stress']:.5f}, expected {expected} ± 0.003")
    check(200 <= done["iterations"] <= 800, f"{done['iterations']} Guttman iterations, expected about 370-450")
    read_points(output, 1000)
    print(f"stress {done['stress']:.5f} after {done['iterations']} iterations, {done['cg_iterations']} CG steps")


def write_matrix(path, values, n):
    with open(path, "wb") as file:
        file.write(struct.pack(f"<{n * n}h", *values))


def write_sampled_3d(args, n, missing_every=0):
    """Distances of n random 3D points as a little-endian SPIDAL matrix, optionally with
    every k-th pair (symmetrically) marked missing (-1); returns (path, distances)."""
    generator = random.Random(7)
    truth = [[generator.uniform(0, 0.5) for _ in range(3)] for _ in range(n)]
    distance = [[math.dist(a, b) for b in truth] for a in truth]

    def stored(i, j):
        if missing_every and i != j and (min(i, j) * n + max(i, j)) % missing_every == 0:
            return -1
        return round(distance[i][j] * 32767)

    path = os.path.join(args.work, f"sampled-{n}-{missing_every}.bin")
    write_matrix(path, [stored(i, j) for i in range(n) for j in range(n)], n)
    return path, distance


def sampled_3d(args):
    """Distances of random 3D points must be recovered (up to a rigid motion), also with
    7% of the pairs missing (which takes the CG solve instead of the closed form), and
    for a few points: solving (V + I)X = BX instead of SMACOF's V⁺ left 2 points 2/3 of
    their distance apart (stress 0.11), 12 points at stress 0.006, 200 at 3e-5."""
    for n, missing_every in ((2, 0), (12, 0), (200, 0), (40, 14), (200, 14)):
        path, distance = write_sampled_3d(args, n, missing_every)
        output = os.path.join(args.work, f"sampled-{n}-{missing_every}.txt")
        lines = progress_lines(run_damds(args, ["--distances", path, "--points", str(n), "--output", output,
                                                "--seed", "3"], threads=2))
        done = lines[-1]
        check(lines[0]["closed_form"] == (missing_every == 0), f"unexpected solver choice: {lines[0]}")
        check(done["stress"] < 1e-5, f"{n} points: stress {done['stress']:.3g} on exact 3D distances, expected < 1e-5")
        points = read_points(output, n)
        worst = max(abs(math.dist(points[i], points[j]) - distance[i][j]) for i in range(n) for j in range(i))
        check(worst < 0.01, f"a recovered distance is off by {worst:.4f}")
        print(f"{n} points, missing 1/{missing_every or 'none'}: stress {done['stress']:.3g}, "
              f"largest distance error {worst:.2e}, {done['cg_iterations']} CG steps")


def ranks_and_threads_agree(args):
    """1 and 2 ranks, 1 and 2 threads give the same iterations, stress and points up to
    rounding. Each pair's term is computed once whatever the layout, but the float sums
    of a row group's column blocks and the ranks' shares add up in an order that depends
    on it. With unit weights (closed-form solve) that shows as ~1e-6 of the points'
    extent. With SPIDAL's weights the difference starts as small (stress within 3e-8
    after the first temperature) but grows through the annealing and the CG solves to
    ~1e-3 of the extent at the end, with the stress still within 1e-5; a change of build
    that rounds only the rows' last columns differently moves points by 2e-5."""
    common = ["--distances", example(args, "dist.bin"), "--points", "1000", "--big-endian", "--alpha", "0.8",
              "--tmin-factor", "20", "--threshold", "1e-5", "--seed", "5"]
    weights = ["--weights", example(args, "weight.bin")]
    for name, extra, stress_tolerance, points_tolerance in [("unit weights", [], 1e-7, 2e-5),
                                                            ("SPIDAL weights", weights, 1e-5, 3e-3)]:
        runs = {}
        for ranks, threads in [(1, 1), (1, 2), (2, 1)]:
            output = os.path.join(args.work, f"agree-{ranks}-{threads}.txt")
            done = progress_lines(run_damds(args, common + extra + ["--output", output], ranks=ranks,
                                            threads=threads))[-1]
            check(done["ranks"] == ranks, f"ran on {done['ranks']} ranks, asked for {ranks}")
            runs[(ranks, threads)] = (done, read_points(output, 1000))
        base_done, base_points = runs[(1, 1)]
        extent = max(abs(value) for point in base_points for value in point)
        worst_points = 0.0
        for key, (done, points) in runs.items():
            check(done["iterations"] == base_done["iterations"], f"{name} {key}: {done['iterations']} iterations vs "
                                                                  f"{base_done['iterations']}")
            check(abs(done["stress"] - base_done["stress"]) <= stress_tolerance * base_done["stress"],
                  f"{name} {key}: stress {done['stress']} vs {base_done['stress']}")
            worst = max(abs(a - b) for p, q in zip(points, base_points) for a, b in zip(p, q))
            check(worst <= points_tolerance * extent,
                  f"{name} {key}: points differ by {worst:.2e} (extent {extent:.3f})")
            worst_points = max(worst_points, worst)
        print(f"{name}: {base_done['iterations']} iterations on every layout, stress {base_done['stress']:.6f}, "
              f"points within {worst_points / extent:.1e} of their extent")


def streamed_matches_memory(args):
    """A matrix streamed from disk (a --memory-limit far below its size: blocks of 64
    rows re-read on every pass) gives the in-memory run's points byte for byte on one
    thread per rank: the blocks start on the pass's row groups, so every sum adds the
    same terms in the same order. With two threads a rank's rows are shared between
    them per block instead of per rank, which changes only the rounding of the threads'
    sums (as ranks-threads-agree allows). Covers the closed-form solve, missing
    distances (synthesised weights, CG) and a weight file; an asymmetric matrix, which
    a stream cannot symmetrise, is refused by name."""
    n = 300
    weights_path = os.path.join(args.work, "weights.bin")
    generator = random.Random(5)
    pair_weight = {(i, j): generator.choice([0, 1000, 20000, 32767]) for i in range(n) for j in range(i + 1, n)}
    write_matrix(weights_path, [0 if i == j else pair_weight[(min(i, j), max(i, j))] for i in range(n) for j in range(n)], n)
    variants = [("unit weights", 0, []), ("missing distances", 14, []), ("weight file", 0, ["--weights", weights_path])]
    for name, missing_every, extra in variants:
        path, _ = write_sampled_3d(args, n, missing_every)
        # A short schedule: every pass and CG step re-reads the file from disk.
        common = ["--distances", path, "--points", str(n), "--seed", "2", "--alpha", "0.8", "--tmin-factor", "20",
                  "--threshold", "1e-5"] + extra
        for ranks, threads in [(1, 1), (2, 1), (1, 2)]:
            outputs = {}
            for mode, limit in [("memory", []), ("streamed", ["--memory-limit", "40K"])]:
                output = os.path.join(args.work, f"{mode}-{ranks}-{threads}.txt")
                lines = progress_lines(run_damds(args, common + limit + ["--output", output], ranks=ranks,
                                                 threads=threads))
                check(lines[0]["streamed"] == (mode == "streamed"), f"{name}: {mode} run reports {lines[0]}")
                with open(output) as file:
                    outputs[mode] = (lines[-1], file.read())
            (memory_done, memory_text), (streamed_done, streamed_text) = outputs["memory"], outputs["streamed"]
            check(memory_done["iterations"] == streamed_done["iterations"],
                  f"{name} {ranks}x{threads}: {streamed_done['iterations']} iterations streamed, "
                  f"{memory_done['iterations']} in memory")
            if threads == 1:
                check(streamed_text == memory_text, f"{name} {ranks}x{threads}: streamed points differ from in-memory")
                check(streamed_done["stress"] == memory_done["stress"], f"{name}: stress differs")
            else:
                points = [[float(v) for v in line.split()[1:]] for line in memory_text.splitlines()]
                other = [[float(v) for v in line.split()[1:]] for line in streamed_text.splitlines()]
                extent = max(abs(value) for point in points for value in point)
                worst = max(abs(a - b) for p, q in zip(points, other) for a, b in zip(p, q))
                check(worst <= 2e-5 * extent, f"{name} {ranks}x{threads}: points differ by {worst:.2e}")
        print(f"{name}: streamed = in memory (byte for byte on 1 and 2 ranks, one thread each)")
    asymmetric = os.path.join(args.work, "asymmetric.bin")
    write_matrix(asymmetric, [0 if i == j else 1000 + 3 * i + j for i in range(n) for j in range(n)], n)
    for ranks in (1, 2):
        result = run_damds(args, ["--distances", asymmetric, "--points", str(n), "--memory-limit", "40K",
                                  "--output", os.path.join(args.work, "asymmetric.txt")], ranks=ranks, expect_ok=False)
        check(result.returncode == 2 and "row 0 differs from its column" in result.stderr,
              f"asymmetric streamed matrix: exit {result.returncode}, stderr {result.stderr.strip()!r}")
    print("asymmetric matrix refused when streamed")


def bad_inputs(args):
    n = 10
    good = os.path.join(args.work, "good.bin")
    write_matrix(good, [0 if i == j else 1000 + i + j for i in range(n) for j in range(n)], n)
    short = os.path.join(args.work, "short.bin")
    with open(good, "rb") as source, open(short, "wb") as target:
        target.write(source.read()[:-2])
    unreadable = os.path.join(args.work, "directory.bin")
    os.makedirs(unreadable, exist_ok=True)
    output = os.path.join(args.work, "bad-out", "points.txt")
    os.makedirs(os.path.dirname(output), exist_ok=True)
    cases = [
        ("wrong file size", ["--distances", short, "--points", str(n)], "expected 200 bytes"),
        ("--points larger than the file", ["--distances", good, "--points", "11"], "a 10×10 matrix"),
        ("missing --points", ["--distances", good], "missing required option --points"),
        ("unreadable file", ["--distances", os.path.join(args.work, "absent.bin"), "--points", str(n)],
         "cannot open"),
        ("not a regular file", ["--distances", unreadable, "--points", str(n)], "not a regular file"),
        ("bad weights size", ["--distances", good, "--weights", short, "--points", str(n)], "expected 200 bytes"),
        ("bad number", ["--distances", good, "--points", "ten"], "--points must be an integer"),
        ("unknown option", ["--distances", good, "--points", str(n), "--colour", "red"], "unknown option"),
        ("bad memory limit", ["--distances", good, "--points", str(n), "--memory-limit", "12T"],
         "--memory-limit must be a positive byte count"),
        ("bad initial points", ["--distances", good, "--points", str(n), "--initial-points", good],
         "finite coordinates"),
        ("unknown kernel", ["--distances", good, "--points", str(n), "--kernel", "sse9"], "--kernel: "),
    ]
    for ranks in (1, 2):
        for name, arguments, message in cases:
            result = run_damds(args, arguments + ["--output", output], ranks=ranks, expect_ok=False)
            check(result.returncode == 2, f"{name} ({ranks} ranks): exit code {result.returncode}, expected 2")
            # mpirun may add its own lines (the MPI_Abort notice); ours is one line.
            reported = [line for line in result.stderr.splitlines() if line.startswith("damds: ")]
            check(any(message in line for line in reported),
                  f"{name} ({ranks} ranks): stderr {result.stderr.strip()!r} lacks {message!r}")
            no_leftovers(output)
    print(f"{len(cases)} bad inputs rejected with exit code 2 on 1 and 2 ranks")


def config_and_help(args):
    """A SPIDAL config.properties drives the run; the command line overrides it."""
    n = 60
    path, _ = write_sampled_3d(args, n)
    output = os.path.join(args.work, "from-config.txt")
    config = os.path.join(args.work, "config.properties")
    with open(config, "w") as file:
        file.write(f"# SPIDAL DA-MDS settings\nDistanceMatrixFile = {path}\nNumberDataPoints={n}\n"
                   f"PointsFile={output}\nTargetDimension=2\nIsBigEndian=false\nAlpha=0.9\n"
                   "ClusterFile=unused-by-damds.txt\n")
    lines = progress_lines(run_damds(args, ["-c", config, "--dim", "3", "--kernel", "generic"]))
    check(lines[0]["phase"] == "loaded" and lines[0]["points"] == n and lines[0]["dim"] == 3
          and lines[0]["kernel"] == "generic", f"config or --kernel not applied: {lines[0]}")
    check(any(line["phase"] == "anneal" for line in lines) and lines[-2]["phase"] == "final",
          "expected anneal lines and a final line before done")
    read_points(output, n, dim=3)
    help_text = run_damds(args, ["--help"]).stdout
    check(help_text.startswith("Usage: damds") and "NumberDataPoints" in help_text, "--help lacks usage or keys")
    print("config.properties run with command-line overrides (--dim, --kernel); --help lists config keys")


CASES = {
    "config-and-help": config_and_help,
    "reference-weighted": lambda args: reference_stress(args, True),
    "reference-unweighted": lambda args: reference_stress(args, False),
    "sampled-3d": sampled_3d,
    "ranks-threads-agree": ranks_and_threads_agree,
    "bad-inputs": bad_inputs,
    "streamed-matches-memory": streamed_matches_memory,
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--damds", required=True)
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix=f"damds-{args.case}-") as work:
        args.work = work
        return run_case(args.case, CASES[args.case], args)


if __name__ == "__main__":
    sys.exit(main())
