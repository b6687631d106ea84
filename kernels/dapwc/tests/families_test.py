#!/usr/bin/env python3
"""The sequence-clustering pipeline (swg --distance global -> dapwc --max-clusters 20) on
planted families with known answers: families grown from real reads of
../shared/data/16s-4640.fasta (ancestors >= 15 % apart, 12-60 members, 4 and 8 %
mutation, several seeds), a large set of 12 such families, random-ancestor
families (5 x 40) and 60 sequences in 3 families. Each must be recovered with an
adjusted Rand index of at least 0.95 and the true number of clusters, with no
warning; with a cap below the families' count, the result says it was capped.

usage: families_test.py SWG DAPWC FASTA
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import families  # noqa: E402

SWG, DAPWC, FASTA = sys.argv[1:4]
# The sequence-clustering job's distance (kernels/README.md says why).
DISTANCE = "global"
# The job's default maxClusters (schema/src/jobTypes.ts).
MAX_CLUSTERS = 20
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def cluster(work, name, records, max_clusters=MAX_CLUSTERS):
    """Labels and dapwc's done line for `records` through swg and dapwc."""
    fasta, matrix, output = (os.path.join(work, name + ext) for ext in (".fasta", ".bin", ".clusters"))
    families.write_fasta(fasta, records)
    subprocess.run([SWG, "--input", fasta, "--output", matrix, "--distance", DISTANCE],
                   check=True, capture_output=True, timeout=120)
    result = subprocess.run([DAPWC, "--distances", matrix, "--points", str(len(records)), "--output", output,
                             "--max-clusters", str(max_clusters)],
                            check=True, capture_output=True, text=True, timeout=120)
    with open(output) as f:
        labels = [int(line.split()[1]) for line in f]
    return labels, json.loads(result.stdout.splitlines()[-1])


def expect_recovered(work, name, records, max_clusters=MAX_CLUSTERS):
    labels, done = cluster(work, name, records, max_clusters)
    truth = [r[2] for r in records]
    ari = families.adjusted_rand_index(truth, labels)
    print(f"{name}: N = {len(records)}, {done['clusters']} clusters, ARI {ari:.3f}")
    check(ari >= 0.95, f"{name}: ARI {ari:.3f}")
    check(done["clusters"] == len(set(truth)), f"{name}: {done['clusters']} clusters, {len(set(truth))} families")
    check(done.get("warnings") == [], f"{name}: warnings {done.get('warnings')}")


def expect_capped(work, name, records, max_clusters):
    """Fewer clusters allowed than the families: the cap is reached and the result says so."""
    _, done = cluster(work, name, records, max_clusters)
    print(f"{name}: {done['clusters']} clusters, warnings {done['warnings']}")
    check(done["clusters"] == max_clusters, f"{name}: {done['clusters']} clusters")
    check(any(w.startswith(f"capped at {max_clusters} clusters:") for w in done["warnings"]),
          f"{name}: no capped warning in {done['warnings']}")


def main():
    os.environ["OMP_NUM_THREADS"] = "2"
    with tempfile.TemporaryDirectory(prefix="dapwc-families-") as work:
        for rate in (0.04, 0.08):
            for seed in (1, 2, 3):
                expect_recovered(work, f"real-{rate:.0%}-seed{seed}",
                                 families.real_read_families(FASTA, 6, (12, 60), rate, seed))
        twelve = families.real_read_families(FASTA, 12, (12, 60), 0.04, 7)
        expect_recovered(work, "real-12-families", twelve)
        expect_capped(work, "real-12-families-capped-at-6", twelve, 6)
        expect_recovered(work, "random-5x40", families.random_ancestor_families(5, 40, 100, 0.04, 1))
        expect_recovered(work, "real-60-in-3", families.real_read_families(FASTA, 3, (20, 20), 0.04, 4))
        expect_recovered(work, "random-60-in-3", families.random_ancestor_families(3, 20, 100, 0.04, 4))
    print(f"{len(failures)} failures" if failures else "all planted families recovered")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
