#!/usr/bin/env python3
"""End-to-end tests of the mdsseries program on generated markets: 1 vs 2 ranks (and
threads) agree, SIGTERM stops a run within seconds without leaving output, and bad
inputs exit with code 2 and a message naming the file, line or option.

Usage: cli_test.py CASE --mdsseries BIN --market BIN --mpiexec MPIEXEC
"""
import argparse
import json
import math
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../common/tests"))
from checks import Failure, check, run_case  # noqa: E402

MPI_FLAGS = ["--allow-run-as-root", "--oversubscribe"]


def environment(threads):
    return dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")


def command(args, arguments, ranks):
    base = [args.mdsseries] + arguments
    return [args.mpiexec, "-np", str(ranks)] + MPI_FLAGS + base if ranks > 1 else base


def run(args, arguments, ranks=1, threads=1, expect_ok=True):
    result = subprocess.run(command(args, arguments, ranks), capture_output=True, text=True,
                            env=environment(threads), timeout=600)
    if expect_ok:
        check(result.returncode == 0, f"mdsseries failed ({result.returncode}): {result.stderr.strip()}")
    return result


def generate(args, directory, stocks, days, sectors=6, seed=7):
    subprocess.run([args.market, "--directory", directory, "--stocks", str(stocks), "--days", str(days),
                    "--sectors", str(sectors), "--seed", str(seed), "--bad-stocks"], check=True)
    return ["--prices", f"{directory}/prices.bin", "--volumes", f"{directory}/volumes.bin",
            "--dates", f"{directory}/dates.txt", "--symbols", f"{directory}/symbols.txt"]


def read_frames(path):
    """[(header fields, {symbol: (x, y, z, bin)})] of a frames file."""
    frames = []
    with open(path) as file:
        check(file.readline().strip() == "# mdsseries frames 1", f"{path}: no frames header")
        for line in file:
            fields = line.split()
            if fields[0] == "frame":
                frames.append((fields, {}))
            elif fields[0] not in ("symbols", "symbol"):
                frames[-1][1][int(fields[0])] = tuple(float(v) for v in fields[1:4]) + (int(fields[4]),)
    return frames


def ranks_agree(args):
    """Ranks split the pairs and sum their shares with Allreduce, threads their rows, so
    sums differ in the last bits; the weighted solve's CG amplifies that, and warm starts
    carry it from frame to frame. Measured over these 44 frames: the stress agrees to
    ~1e-6 and points to ~1e-3 of the extent; the bounds leave a margin of 10."""
    with tempfile.TemporaryDirectory() as directory:
        inputs = generate(args, directory, 62, 520)
        common = inputs + ["--window-days", "120", "--step-days", "14", "--weights", "tradedValue", "--seed", "3"]
        runs = {}
        for ranks, threads in [(1, 1), (2, 1), (1, 2)]:
            output = f"{directory}/frames-{ranks}-{threads}.txt"
            result = run(args, common + ["--output", output], ranks=ranks, threads=threads)
            done = json.loads(result.stdout.strip().splitlines()[-1])
            check(done["phase"] == "done" and done["ranks"] == ranks, f"unexpected last line {done}")
            runs[(ranks, threads)] = read_frames(output)
        base = runs[(1, 1)]
        check(len(base) == 44, f"{len(base)} frames, expected 44")
        for key, frames in runs.items():
            worst_points = worst_stress = 0.0
            for (header, points), (base_header, base_points) in zip(frames, base):
                check(header[:6] == base_header[:6], f"{key}: frame header {header} vs {base_header}")
                check(sorted(points) == sorted(base_points), f"{key}: frame {header[1]} has other symbols")
                extent = max(math.dist(p[:3], q[:3]) for p in base_points.values() for q in base_points.values())
                worst_points = max(worst_points, max(math.dist(points[s][:3], base_points[s][:3]) / extent
                                                     for s in points))
                check(all(points[s][3] == base_points[s][3] for s in points), f"{key}: change bins differ")
                worst_stress = max(worst_stress, abs(float(header[7]) - float(base_header[7])) / float(base_header[7]))
            print(f"ranks, threads {key}: points within {worst_points:.2e} of the extent, stress {worst_stress:.2e}")
            check(worst_points <= 1e-2, f"{key}: points differ by {worst_points:.3g} of the extent")
            check(worst_stress <= 1e-5, f"{key}: stress differs by {worst_stress:.3g}")


def children(pid):
    """The processes whose parent is `pid` (mpirun's ranks)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except OSError:
                pass  # ended meanwhile
    return found


def cancel(args):
    """SIGTERM after the first frame: the run stops within seconds, says so on its last
    progress line, exits 143 and leaves neither the output nor its temporary file."""
    with tempfile.TemporaryDirectory() as directory:
        inputs = generate(args, directory, 600, 2000, sectors=10)
        output = f"{directory}/frames.txt"
        for ranks in (1, 2):
            # Unbuffered bytes: readline then reads no further than the line it returns, so
            # communicate() below, which reads the pipe's descriptor itself, misses nothing (a
            # buffered reader would keep what it read ahead, and communicate would start mid-line).
            process = subprocess.Popen(command(args, inputs + ["--output", output, "--weights", "tradedValue"], ranks),
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                                       env=environment(1), start_new_session=True)
            lines = []
            while line := process.stdout.readline():
                lines.append(json.loads(line))
                if lines[-1]["phase"] == "frame":
                    break
            if not lines or lines[-1]["phase"] != "frame":
                raise Failure(f"no frame line before the end: {process.communicate()[1].decode()}")
            signalled = time.monotonic()
            # To the program's processes, as Slurm's scancel signals every task. Not to mpirun:
            # it would abort the job (its ranks each run in their own process group) and may
            # drop their last output, the "cancelled" line, while it tears them down.
            for pid in [process.pid] if ranks == 1 else children(process.pid):
                os.kill(pid, signal.SIGTERM)
            rest, errors = (out.decode() for out in process.communicate(timeout=30))
            stopped = time.monotonic() - signalled
            last = []
            for line in filter(str.strip, rest.splitlines()):
                try:
                    last.append(json.loads(line))
                except json.JSONDecodeError:
                    raise Failure(f"{ranks} rank(s): a stdout line after SIGTERM is not JSON: {line[:300]!r}; "
                                  f"stderr {errors.strip()[:1000]}") from None
            print(f"{ranks} rank(s): stopped {stopped:.2f} s after SIGTERM, exit {process.returncode}")
            check(stopped < 5.0, f"took {stopped:.1f} s to stop")
            check(last and last[-1]["phase"] == "cancelled", f"last line {last[-1:] }, stderr {errors.strip()}")
            if ranks == 1:
                check(process.returncode == 143, f"exit {process.returncode}, expected 143")
            else:
                check(process.returncode != 0, "mpirun exited 0 after a cancel")
            check(not [name for name in os.listdir(directory) if name.startswith("frames")],
                  f"left {os.listdir(directory)}")


def write_matrix(path, rows, value_bytes=8, magic=b"WPVTSMAT", version=1, truncate=0):
    symbols, days = len(rows), len(rows[0])
    data = struct.pack("<8sIIQQ", magic, version, value_bytes, symbols, days)
    code = "<%dd" if value_bytes == 8 else "<%df"
    for row in rows:
        data += struct.pack(code % days, *row)
    with open(path, "wb") as file:
        file.write(data[:len(data) - truncate])


def bad_inputs(args):
    with tempfile.TemporaryDirectory() as directory:
        d = directory
        prices = [[10.0 + s + 0.01 * t * (s % 3 + 1) + (t % 5) * 0.1 * (s + 1) for t in range(40)] for s in range(4)]
        write_matrix(f"{d}/good.bin", prices)
        write_matrix(f"{d}/float32.bin", prices, value_bytes=4)
        write_matrix(f"{d}/magic.bin", prices, magic=b"NOTMAGIC")
        write_matrix(f"{d}/short.bin", prices, truncate=8)
        negative = [row[:] for row in prices]
        negative[2][7] = -1.0
        write_matrix(f"{d}/negative.bin", negative)
        write_matrix(f"{d}/volumes-shape.bin", [row[:30] for row in prices])
        with open(f"{d}/dates-short.txt", "w") as file:
            file.write("2020-01-01\n2020-01-02\n")
        with open(f"{d}/dates-bad.txt", "w") as file:
            file.write("".join(f"2020-02-{t + 1:02d}\n" if t != 3 else "2020-02-31\n" for t in range(40)))
        with open(f"{d}/dates-order.txt", "w") as file:
            file.write("".join(f"2020-03-{t + 1:02d}\n" for t in range(20)) * 2)
        base = ["--output", f"{d}/out.txt", "--window-days", "10", "--step-days", "5"]
        ok = run(args, ["--prices", f"{d}/good.bin"] + base)
        check(ok.returncode == 0, "the good input failed")
        check(len(read_frames(f"{d}/out.txt")) == 7, "expected 7 frames of 10 days every 5 in 40 days")
        run(args, ["--prices", f"{d}/float32.bin"] + base)
        cases = [
            (["--prices", f"{d}/missing.bin"], "missing.bin: cannot open"),
            (["--prices", f"{d}/magic.bin"], "no WPVTSMAT header"),
            (["--prices", f"{d}/short.bin"], "expected 1312 for 4 × 40 values"),
            (["--prices", f"{d}/negative.bin"], "symbol 2, day 7: price -1.000000 is not positive"),
            (["--prices", f"{d}/good.bin", "--volumes", f"{d}/volumes-shape.bin"], "4 × 30 values, the prices are 4 × 40"),
            (["--prices", f"{d}/good.bin", "--dates", f"{d}/dates-short.txt"], "2 dates for 40 days"),
            (["--prices", f"{d}/good.bin", "--dates", f"{d}/dates-bad.txt"], "dates-bad.txt:4: '2020-02-31' is not"),
            (["--prices", f"{d}/good.bin", "--dates", f"{d}/dates-order.txt"], "dates-order.txt:21: dates must increase"),
            (["--prices", f"{d}/good.bin", "--window-days", "60"], "the window (60 days) is longer than the data (40 days)"),
            (["--prices", f"{d}/good.bin", "--weights", "tradedValue"], "--weights tradedValue needs --volumes"),
            (["--prices", f"{d}/good.bin", "--distance", "cosine"], "--distance must be correlation or change"),
        ]
        os.remove(f"{d}/out.txt")
        for arguments, expected in cases:
            result = run(args, base + arguments, expect_ok=False)
            check(result.returncode == 2, f"{arguments}: exit {result.returncode}, expected 2; {result.stderr.strip()}")
            check(expected in result.stderr, f"{arguments}: stderr {result.stderr.strip()!r} lacks {expected!r}")
            check(not [name for name in os.listdir(d) if name.startswith("out.txt")], f"{arguments}: output left")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=["ranks-agree", "cancel", "bad-inputs"])
    parser.add_argument("--mdsseries", required=True)
    parser.add_argument("--market", required=True)
    parser.add_argument("--mpiexec", required=True)
    args = parser.parse_args()
    return run_case(args.case, {"ranks-agree": ranks_agree, "cancel": cancel, "bad-inputs": bad_inputs}[args.case], args)


if __name__ == "__main__":
    sys.exit(main())
