#!/usr/bin/env bash
# Assembles bench/RESULTS.md from the per-area result files each benchmark writes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
{
  echo "# Benchmark results"
  echo
  echo "Each section is written by its benchmark (see bench/README.md for the commands) and"
  echo "compares against a peer measured in the same run on the same machine: 2 cores, 24 GB,"
  echo "shared and noisy, so ratios matter more than absolute figures."
  for area in server ingest viewer viewer-frames swg damds dapwc dapwc-split-tests clustering mdsseries gateway faults python-client; do
    [[ -f "results/$area.md" ]] || continue
    echo
    # Sections nest under this page's title: a file that starts at "#" moves down a level.
    if head -n 1 "results/$area.md" | grep -q '^# '; then sed 's/^#/##/' "results/$area.md"; else cat "results/$area.md"; fi
  done
} >RESULTS.md
echo "wrote bench/RESULTS.md"
