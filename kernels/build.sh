#!/usr/bin/env bash
# Configures and builds the kernels into kernels/build (Release, bins in kernels/build/bin).
# Safe to re-run; run the tests with: ctest --test-dir kernels/build
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cmake -S "$here" -B "$here/build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$here/build" -j "${KERNELS_JOBS:-2}"
