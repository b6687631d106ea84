#!/usr/bin/env bash
# bundle.sh [DIR]: a self-contained folder (default .devbundle) to run the kernels' native
# tests and benchmarks on another x86-64 Linux machine that has Python 3.12 and numpy, with
# or without an Open MPI of its own (the lent machine whose CPU has AVX-512 has 4.1.6): the
# built kernel programs and test binaries, the Open MPI 4.1 runtime they link, the shared
# libraries both need beyond glibc and libstdc++, parasail's wheel for
# bench/swg/bench_swg.py, and the 16S reads.
# On that machine, from the repository root: `source DIR/env.sh`, then run the benchmarks.
# Build first: KERNELS_PROGRAMS="swg;damds" bash kernels/build.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bundle="$(realpath -m "${1:-$root/.devbundle}")"
build="$root/kernels/build"
multiarch=/usr/lib/x86_64-linux-gnu

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/root" "$bundle/wheels"
cp "$build"/bin/* "$bundle/bin/"
find "$build" -name '*_tests' -type f -executable -exec cp {} "$bundle/bin/" \;
g++ -O2 "$root/bench/swg/vector_alu.cpp" -o "$bundle/bin/vector_alu"

# Open MPI's own tree, copied to the same paths there (they do not exist on that machine):
# its plugins and help files are found through paths compiled into the library. Plugins for
# network fabrics are left out; one machine needs only shared memory.
for path in "$multiarch/openmpi" "$multiarch/pmix2" /usr/share/openmpi /usr/share/pmix /etc/openmpi \
  /usr/bin/orted /usr/bin/orterun; do
  if [[ -e "$path" ]]; then tar -C / -cf - "${path#/}" | tar -C "$bundle/root" -xf -; fi
done
ln -sfn orterun "$bundle/root/usr/bin/mpirun"
find "$bundle/root" -name 'mca_*' \( -name '*ucx*' -o -name '*ofi*' -o -name '*openib*' -o -name '*verbs*' \
  -o -name '*psm*' -o -name '*usnic*' -o -name '*portals*' \) -delete

# Every shared library these programs and plugins load, except the C library's own and the
# C++ runtime, which the target machine has in newer versions.
find "$bundle/bin" "$bundle/root" -type f \( -executable -o -name '*.so*' \) -print0 |
  xargs -0 ldd 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so' |
  while read -r lib; do cp -L "$lib" "$bundle/lib/"; done

python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --platform manylinux1_x86_64 -d "$bundle/wheels" parasail
cp "$root/../shared/data/16s-4640.fasta" "$bundle/"

cat > "$bundle/env.sh" <<'EOF'
# Sourced on the target machine. Where it has an Open MPI of its own (4.1 keeps libmpi.so.40's
# ABI), that one is used with its own PMIx; otherwise the bundled tree is installed where it
# is looked for. Only the libraries the machine lacks are taken from the bundle.
bundle="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v orted > /dev/null || cp -an "$bundle/root/." /
mkdir -p /tmp/bundle-lib
ldconfig -p | awk '{print $1}' > /tmp/bundle-lib.system
for lib in "$bundle"/lib/*; do
  grep -qxF "$(basename "$lib")" /tmp/bundle-lib.system || ln -sf "$lib" /tmp/bundle-lib/
done
python3 -m pip install -q --no-index --no-deps --target /tmp/site "$bundle"/wheels/*.whl
export PYTHONPATH=/tmp/site PATH="$bundle/bin:$PATH" LD_LIBRARY_PATH=/tmp/bundle-lib
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
EOF
du -sh "$bundle"
