#!/usr/bin/env bash
# One row of the interpolation scale table (issue 18 part 5): N planted reads (scale.py reads),
# a sequence-clustering job on them end to end through the gateway (job.ts; default sampleSize),
# then its map scored (scale.py score: ARI over all reads, stress over the pairs of a random subset).
# Needs a stack (MONGODB_URI, AMQP_URL; else run it under bench/with-stack.sh) and KERNELS_BIN.
# Writes bench/out/interp/scale-<N>/{reads.fasta,job.json,score.json,points.txt,clusters.txt}.
#   bash bench/interp/scale.sh N [RANKS] [PARAMS_JSON]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
n="$1"
out="$root/bench/out/interp/scale-$n"
python="$root/.local/venv-clustering/bin/python"  # made by bench/interp/run.sh
mkdir -p "$out"
[[ -s "$out/reads.fasta" ]] || "$python" "$root/bench/interp/scale.py" reads "$n" "$out/reads.fasta"
params="${3:-}"
node --import tsx "$root/bench/interp/job.ts" "$out/reads.fasta" "$out" "${2:-2}" "${params:-"{}"}"
"$python" "$root/bench/interp/scale.py" score "$out/reads.fasta" "$out/points.txt" "$out/clusters.txt" \
  --bin "${KERNELS_BIN:-$root/kernels/build/bin}" | tee "$out/score.json"
