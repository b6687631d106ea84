#!/usr/bin/env bash
# Installs what is missing: Debian packages (as root), npm dependencies, the
# embedded FerretDB build. Safe to run again: each step checks first.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WPV_ROOT"

# Debian packages the platform and its tests use, and the command each provides.
declare -A DEB_CHECK=(
  [rabbitmq-server]=/usr/lib/rabbitmq/bin/rabbitmq-server
  [openmpi-bin]=/usr/bin/mpirun
  [libopenmpi-dev]=/usr/include/x86_64-linux-gnu/openmpi/mpi.h
  [libgtest-dev]=/usr/include/gtest/gtest.h
  [libsimde-dev]=/usr/include/simde/x86/avx512.h
  [cmake]=/usr/bin/cmake
  [g++]=/usr/bin/g++
  [chromium]=/usr/bin/chromium
  [golang-go]=go
  [slurmctld]=/usr/sbin/slurmctld
  [slurmd]=/usr/sbin/slurmd
  [slurm-client]=/usr/bin/sbatch
  [munge]=/usr/sbin/munged
  [iproute2]=/usr/sbin/ip  # scripts/slurm.sh NODES>=2: network namespaces, veth pairs and a bridge
  [time]=/usr/bin/time
  [supervisor]=/usr/bin/supervisord  # runs the platform's services (scripts/up.sh)
  # The SWG AVX-512 kernel's test on an emulated CPU (kernels/swg/tests/avx512_on_bochs.sh).
  [bochs]=/usr/bin/bochs
  [bochs-term]=/usr/share/doc/bochs-term  # its lightest display library (Bochs needs one)
  [bochsbios]=/usr/share/bochs/BIOS-bochs-latest
  [vgabios]=/usr/share/vgabios/vgabios.bin
  [busybox-static]=/usr/share/doc/busybox-static
  [isolinux]=/usr/lib/ISOLINUX/isolinux.bin
  [syslinux-common]=/usr/lib/syslinux/modules/bios/ldlinux.c32
  [genisoimage]=/usr/bin/genisoimage
  [cpio]=/usr/bin/cpio
  [python3-venv]=/usr/share/doc/python3-venv  # the Python client's test venv (clients/python/run_tests.sh)
  [wrk]=/usr/bin/wrk  # the HTTP load generator of bench/server
  [fasttree]=/usr/bin/FastTree  # the peer check of tree parsing and cutting (server/test/trees/midpoint.test.ts)
)

missing=()
for pkg in "${!DEB_CHECK[@]}"; do
  probe="${DEB_CHECK[$pkg]}"
  if [[ "$probe" == /* ]]; then [[ -e "$probe" ]] || missing+=("$pkg")
  else command -v "$probe" >/dev/null || missing+=("$pkg"); fi
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    die "missing Debian packages: ${missing[*]}
  install them with:  sudo apt-get install -y ${missing[*]}
  or point the platform at existing services with MONGODB_URI and AMQP_URL (and install the rest)."
  fi
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # A dpkg unpack step sometimes fails transiently here; a second try succeeds.
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  say "installing npm dependencies"
  npm ci --no-audit --no-fund --loglevel=error
fi

src=stack/ferretdb
if [[ ! -x "$FERRETDB_BIN" || -n "$(find "$src" -newer "$FERRETDB_BIN" -print -quit)" ]]; then
  say "building the embedded FerretDB store (first time: about a minute)"
  mkdir -p "$(dirname "$FERRETDB_BIN")"
  # Built beside and renamed: a running store keeps its binary until it restarts.
  (cd "$src" && go build -trimpath -o "$FERRETDB_BIN.new" .)
  mv -f "$FERRETDB_BIN.new" "$FERRETDB_BIN"
fi
