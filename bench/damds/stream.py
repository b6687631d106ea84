#!/usr/bin/env python3
"""Out-of-core DA-MDS benchmark: the streamed pass (matrix halves re-read from the
SPIDAL file on every pass, kernels/damds/src/row_stream.cpp) against the in-memory
pass at the same N, and against the disk's sequential read bandwidth measured in the
same run (a sequential read after dropping the file from the page cache); then one run at a
large N whose matrix is larger than RAM. Matrices are generated on the fly
(bench/damds/generate_matrix.cpp: random 3-D points) into --dir and deleted after
each size. Writes bench/results/damds-stream.md.

    python3 bench/damds/stream.py [--damds PATH] [--mid 20000] [--large 150000] [--dir DIR]
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "bench", "results", "damds-stream.md")


def cpu_description():
    text = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    flags = fields.get("Flags", "").split()
    simd = [flag for flag in flags if re.match(r"(avx|fma|sse4)", flag)]
    return f"{fields.get('Model name', '?').strip()}, {os.cpu_count()} cores, SIMD flags: {' '.join(simd)}"


def generator(work):
    binary = os.path.join(work, "generate_matrix")
    source = os.path.join(ROOT, "bench", "damds", "generate_matrix.cpp")
    subprocess.run(["g++", "-O3", "-march=native", "-fopenmp", source, "-o", binary], check=True)
    return binary


def large_matrix(generate, path, n):
    """Writes the N×N matrix to `path` unless a complete one is there already (generate_matrix
    run ahead of the benchmark), after checking the free space; the seconds it took, or None."""
    needed = 2 * n * n
    free = shutil.disk_usage(os.path.dirname(path)).free
    if os.path.exists(path):
        if os.path.getsize(path) == needed:
            return None
        free += os.path.getsize(path)
    if free < needed + (10 << 30):
        raise SystemExit(f"{needed / 1e9:.0f} GB matrix needs {needed / 1e9 + 10:.0f} GB free in "
                         f"{os.path.dirname(path)}, {free / 1e9:.0f} GB are")
    started = time.perf_counter()
    subprocess.run([generate, str(n), path], check=True)
    return time.perf_counter() - started


def disk_read_bandwidth(path, limit_bytes):
    """Sequential read of the file's first `limit_bytes` in 16 MiB reads, in MB/s, the way the streamed
    passes read (buffered, with the kernel's readahead), after writing back and dropping the file's
    pages so that the page cache does not answer. (A single O_DIRECT stream, as dd iflag=direct, reads
    this virtio disk at about half the rate the passes reach.)"""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
        buffer = memoryview(bytearray(16 << 20))
        size, done = min(os.path.getsize(path), limit_bytes), 0
        started = time.perf_counter()
        while done < size:
            count = os.readv(descriptor, [buffer[:min(len(buffer), size - done)]])
            if count == 0:
                break
            done += count
        seconds = time.perf_counter() - started
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(descriptor)
    return done / seconds / 1e6


def run_measured(command, program):
    """Runs `command` on 1 rank × 2 OpenMP threads under /usr/bin/time: its JSON stdout lines,
    its peak RSS in GB and the GB the kernel read from the device for it."""
    environment = dict(os.environ, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
    result = subprocess.run(["/usr/bin/time", "-f", "rusage %M %I"] + command, capture_output=True, text=True,
                            env=environment)
    if result.returncode != 0:
        raise RuntimeError(f"{program} failed: {result.stderr[-2000:]}")
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    max_rss_kb, input_blocks = re.search(r"rusage (\d+) (\d+)", result.stderr).groups()
    return lines, int(max_rss_kb) / 1e6, int(input_blocks) * 512 / 1e9


# How a streamed pass reads and how the disk is probed, for the reports.
STREAMING = ("with explicit `pread`s, the next block of rows on a second thread while the pass runs on the current "
             "one, and drops each block from the page cache (`posix_fadvise DONTNEED`), so every pass reads the "
             "disk. Disk bandwidth: a sequential read of the file's first 4 GB in 16 MiB reads after dropping its pages "
             "from the page cache (buffered, with readahead, as the passes read), before "
             "and after the streamed run.")


def bandwidth_sentence(figures, megabytes, seconds, what):
    """The disk probes and the streamed pass's share of their mean bandwidth."""
    disk = (figures["disk_before"] + figures["disk_after"]) / 2
    rate = megabytes / seconds
    return (f"Disk sequential read: {figures['disk_before']:.0f} MB/s before, {figures['disk_after']:.0f} MB/s "
            f"after. The streamed pass reads {rate:.0f} MB/s of {what}: **{rate / disk:.0%} of the disk's read "
            f"bandwidth** (a pass bound by the disk alone would take {megabytes / disk:.2f} s)")


def run_damds(args, path, n, iterations, limit=None):
    """`iterations` Guttman iterations at T = 0 (as bench/damds/run.py times them)."""
    command = [args.damds, "--distances", path, "--points", str(n), "--output", os.path.join(args.dir, "points.txt"),
               "--max-iterations-per-temperature", str(iterations), "--threshold", "0", "--tmin-factor", "1e6",
               "--seed", "1"]
    if limit:
        command += ["--memory-limit", limit]
    lines, max_rss_gb, disk_read_gb = run_measured(command, "damds")
    loaded = next(line for line in lines if line["phase"] == "loaded")
    done = lines[-1]
    timings = done["timings"]
    return {
        "streamed": loaded["streamed"],
        "load": timings["load"],
        "per_iteration": timings["per_iteration"],
        "per_pass": timings["passes"] / done["pass_count"],
        "passes": done["pass_count"],
        "max_rss_gb": max_rss_gb,
        "disk_read_gb": disk_read_gb,  # what the kernel read from the device for damds
    }


def halves_gb(n):
    return n * (n - 1) / 2 * 2 / 1e9


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--damds", default=os.path.join(ROOT, "kernels", "build", "bin", "damds"))
    parser.add_argument("--mid", type=int, default=20000, help="N run both in memory and streamed")
    parser.add_argument("--large", type=int, default=150000, help="N of the larger-than-RAM run (0: skip)")
    parser.add_argument("--large-limit", default="24G", help="--memory-limit of the large run")
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--dir", default=os.path.join(ROOT, "bench", "out", "damds-stream"))
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    generate = generator(args.dir)
    memory_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    load_before = os.getloadavg()[0]

    # Each part's figures are kept in --dir, so the parts can run separately (--mid 0 or
    # --large 0) and the report shows the latest of each.
    saved_path = os.path.join(args.dir, "figures.json")
    saved = json.load(open(saved_path)) if os.path.exists(saved_path) else {}
    if args.mid:
        mid_path = os.path.join(args.dir, f"n{args.mid}.bin")
        subprocess.run([generate, str(args.mid), mid_path], check=True)
        try:
            in_memory = run_damds(args, mid_path, args.mid, args.iterations)
            disk_before = disk_read_bandwidth(mid_path, 4 << 30)
            # The halves' size: blocks of a quarter of it, four and more per pass.
            streamed = run_damds(args, mid_path, args.mid, args.iterations,
                                 limit=f"{int(halves_gb(args.mid) * 1e3)}M")
            disk_after = disk_read_bandwidth(mid_path, 4 << 30)
        finally:
            os.remove(mid_path)
        saved["mid"] = {"n": args.mid, "iterations": args.iterations, "in_memory": in_memory, "streamed": streamed,
                        "disk_before": disk_before, "disk_after": disk_after, "cpu": cpu_description(),
                        "load_average": [load_before, os.getloadavg()[0]],
                        "date": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M}"}
        print(f"mid: {saved['mid']}", flush=True)

    if args.large:
        large_path = os.path.join(args.dir, f"n{args.large}.bin")
        generate_seconds = large_matrix(generate, large_path, args.large)
        try:
            disk_large = disk_read_bandwidth(large_path, 4 << 30)
            large = run_damds(args, large_path, args.large, 1, limit=args.large_limit)
            large["generate"] = generate_seconds
            large["disk"] = disk_large
        finally:
            os.remove(large_path)
        saved["large"] = dict(large, n=args.large, limit=args.large_limit, cpu=cpu_description(),
                              load_average=[load_before, os.getloadavg()[0]],
                              date=f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M}")
        print(f"large: {saved['large']}", flush=True)
    with open(saved_path, "w") as file:
        json.dump(saved, file)
    if "mid" in saved:
        write_report(saved, memory_gb)


def large_section_head(large):
    """The larger-than-RAM section's heading lines, and how its matrix was made."""
    generated = f"in {large['generate'] / 60:.1f} min" if large["generate"] else "in advance (generate_matrix)"
    return ["", f"## Larger than RAM: N = {large['n']:,} (run {large['date']} UTC, load average "
                f"{large['load_average'][0]:.1f} before, {large['load_average'][1]:.1f} after)", ""], generated


def write_report(saved, memory_gb):
    mid = saved["mid"]
    n = mid["n"]
    in_memory, streamed = mid["in_memory"], mid["streamed"]
    lines = [
        "# Out-of-core DA-MDS benchmark",
        "",
        f"Run {mid['date']} UTC on {platform.node()}: {mid['cpu']}; {memory_gb:.0f} GB RAM, no swap; load "
        f"average {mid['load_average'][0]:.1f} before, {mid['load_average'][1]:.1f} after (the machine and its disk are shared "
        "with other work, so figures are noisy). Command: `python3 bench/damds/stream.py`.",
        "",
        "Matrices: N random points in the unit cube, distances as little-endian SPIDAL int16, unit weights "
        "(`bench/damds/generate_matrix.cpp`), deleted after the run. damds runs "
        f"{mid['iterations']} Guttman iterations at T = 0 on 1 rank × 2 OpenMP threads. A streamed pass reads "
        f"each row's circular upper half (half the file) {STREAMING}",
        "",
        f"## Streamed against in-memory, N = {n:,} ({halves_gb(n):.2f} GB of halves per pass)",
        "",
        "| run | s/pass | s/iteration | load s | peak RSS GB | read from disk GB |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, run in [("in memory", in_memory), (f"streamed (limit {int(halves_gb(n) * 1e3)}M)", streamed)]:
        lines.append(f"| {name} | {run['per_pass']:.3f} | {run['per_iteration']:.3f} | {run['load']:.1f} | "
                     f"{run['max_rss_gb']:.2f} | {run['disk_read_gb']:.1f} |")
    lines += [
        "",
        bandwidth_sentence(mid, halves_gb(n) * 1e3, streamed["per_pass"], "halves") + "; the streamed pass takes "
        f"**{streamed['per_pass'] / in_memory['per_pass']:.1f}×** the in-memory pass's time.",
    ]
    large = saved.get("large")
    if large:
        heading, generated = large_section_head(large)
        lines += heading + [
            f"The SPIDAL file is {2 * large['n'] ** 2 / 1e9:.0f} GB ({memory_gb:.0f} GB RAM); its halves, "
            f"{halves_gb(large['n']):.1f} GB, are more than ¾ of `--memory-limit {large['limit']}`, so damds "
            f"streams them. Generated {generated}; disk {large['disk']:.0f} MB/s (sequential, "
            f"first 4 GB). One Guttman iteration (two passes): load (one sequential scan of the whole file for the "
            f"statistics and the symmetry check) {large['load']:.0f} s, {large['per_pass']:.0f} s per pass "
            f"({halves_gb(large['n']) * 1e3 / large['per_pass']:.0f} MB/s, "
            f"{halves_gb(large['n']) * 1e3 / large['per_pass'] / large['disk']:.0%} of the disk's bandwidth), "
            f"{large['per_iteration']:.0f} s per iteration, peak RSS {large['max_rss_gb']:.2f} GB, "
            f"{large['disk_read_gb']:.0f} GB read from disk in all (the passes' half-row reads bring some of "
            f"the other halves in by readahead). The disk is probed once, before a run of many minutes on a "
            f"shared disk, so this fraction is rougher than the one above (which two probes bracket).",
        ]
    with open(RESULTS, "w") as file:
        file.write("\n".join(lines) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
