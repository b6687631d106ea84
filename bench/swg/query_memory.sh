#!/usr/bin/env bash
# Peak memory per rank of `swg --query` (the interpolation's block) as the number of
# query reads grows, for a build and a baseline build in the same run: an input of
# the first N_INPUT planted reads (bench/interp/scale.py, the gateway's default sample
# size) and the next 30,000 and 100,000 reads (QUERIES) as queries, 2 ranks × 1 thread.
#   bash bench/swg/query_memory.sh BASELINE_SWG [SWG]      (prints a Markdown table)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
baseline="$1"
swg="${2:-$root/kernels/build/bin/swg}"
inputs="${N_INPUT:-4000}"
read -ra query_counts <<<"${QUERIES:-30000 100000}"
most=$((inputs + query_counts[-1]))
out="$root/bench/out/swg-query-memory"
mkdir -p "$out"
python="$root/.local/venv-clustering/bin/python"  # made by bench/interp/run.sh
reads="$out/reads-$most.fasta"
[[ -s "$reads" ]] || "$python" "$root/bench/interp/scale.py" reads "$most" "$reads"
records() { awk -v from="$1" -v to="$2" '/^>/ { n++ } n > from && n <= to' "$reads"; }
records 0 "$inputs" >"$out/input.fasta"
as_root=()
[[ $(id -u) == 0 ]] && as_root=(--allow-run-as-root)
echo "| build | queries | peak memory per rank (MB) | wall s |"
echo "| --- | ---: | ---: | ---: |"
for queries in "${query_counts[@]}"; do
  records "$inputs" $((inputs + queries)) >"$out/queries.fasta"
  for build in "this:$swg" "baseline:$baseline"; do
    start=$(date +%s.%N)
    # shellcheck disable=SC2016 # each rank expands its own rank number
    OMP_NUM_THREADS=1 mpirun "${as_root[@]}" --oversubscribe -np 2 \
      bash -c '/usr/bin/time -f %M -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' "$out/peak" \
      "${build#*:}" --input "$out/input.fasta" --query "$out/queries.fasta" --output "$out/block.bin" >/dev/null
    wall=$(python3 -c "import time; print(f'{time.time() - $start:.0f}')")
    peak=$(cat "$out"/peak.* | sort -n | tail -1)
    echo "| ${build%%:*} | $queries | $((peak / 1024)) | $wall |"
    rm -f "$out"/peak.*
  done
done
