#!/usr/bin/env bash
# Configures and builds the kernels into kernels/build (Release, bins in kernels/build/bin).
# Safe to re-run; run the tests with: ctest --test-dir kernels/build
# KERNELS_PROGRAMS="damds" builds a subset; KERNELS_JOBS sets the parallelism (default 2).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cmake -S "$here" -B "$here/build" -DCMAKE_BUILD_TYPE=Release "-DKERNELS_PROGRAMS=${KERNELS_PROGRAMS:-swg;damds;dapwc;mdsseries;interp}"
cmake --build "$here/build" -j "${KERNELS_JOBS:-2}"
