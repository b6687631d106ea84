#!/usr/bin/env bash
# Runs the SWG AVX-512 lane kernel's real machine code (lane_kernel_avx512.cpp, -mavx512f)
# on an emulated AVX-512 CPU. Build machines without AVX-512 (e.g. AMD Zen 3) only ever
# run that source through SIMDe, so here swg_tests is packed with busybox and its shared
# libraries into an initramfs, booted with a Debian kernel from
# an isolinux ISO in Bochs (cpu model corei7_skylake_x), and the avx512 kernel tests plus
# the run-time selection tests are run there. Passes only if the guest's /proc/cpuinfo shows
# avx512f, the avx512 test cases ran and gtest reported PASSED.
#
# Usage: kernels/swg/tests/avx512_on_bochs.sh SWG_TESTS   (the built swg_tests; ctest's
#        swg-avx512-bochs passes it where the build machine has no AVX-512)
# Env:   BOCHS_CPU (default corei7_skylake_x), BOCHS_TIMEOUT CPU seconds of the emulator
#        (default 2700; the wall clock may run to twice that, for a loaded machine),
#        SWG_BOCHS_FILTER (gtest filter run in the guest). The score-only kernels' case
#        (SupportedKernels/ScoreKernelVersusReference.*avx512*dna*) passes here too, but
#        takes over 6 min of emulation, so it is run by hand rather than in every suite run
#        (the verdict below then wants 4 avx512 cases and fails on its count alone).
# Needs the Debian packages scripts/install.sh installs (bochs, bochsbios, vgabios,
# busybox-static, isolinux, syslinux-common, genisoimage, cpio). The guest kernel is
# downloaded once (~70 MB, apt-get download) into .local/bochs-avx512/, where the boot
# files are made. Takes ~8 min of one core, nearly all in Bochs (boot ~4.5 min; the four
# avx512 DNA cases ~3 min on half their random groups, SWG_TEST_GROUPS_PERCENT=50; all of
# them took ~9 min). swg_tests is portable: only the per-ISA kernel files are built for
# wider vectors (kernels/swg/CMakeLists.txt).
set -euo pipefail

if [[ $# -ne 1 || ! -x "$1" ]]; then
  echo "usage: $0 PATH/TO/swg_tests" >&2
  exit 2
fi
tests_bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
work="$repo/.local/bochs-avx512"
cpu_model="${BOCHS_CPU:-corei7_skylake_x}"
bochs_timeout="${BOCHS_TIMEOUT:-2700}"
# The keyed kernel's DNA cases only: the protein cases and the score-only kernel's
# AVX-512 code are checked on SIMDe (swg-avx512-simde), the same source; their
# reference pairs would add minutes of emulation.
filter="${SWG_BOCHS_FILTER:-SupportedKernels/LaneKernelVersusReference.*avx512*dna*:LaneKernelSelection.*}"
end_marker="SWG-BOCHS-END"
last_line="SWG-BOCHS-LAST"  # once it is in the serial log, the end marker's line is whole
mkdir -p "$work"

for tool in bochs busybox genisoimage cpio /usr/lib/ISOLINUX/isolinux.bin /usr/lib/syslinux/modules/bios/ldlinux.c32 \
  /usr/share/bochs/BIOS-bochs-latest /usr/share/vgabios/vgabios.bin; do
  if [[ "$tool" == /* ]]; then [[ -e "$tool" ]]; else command -v "$tool" >/dev/null; fi ||
    { echo "error: $tool is missing (bash scripts/install.sh installs it)" >&2; exit 1; }
done
# The guest has no libraries but those copied for swg_tests: busybox must be the static one.
if ldd /bin/busybox >/dev/null 2>&1; then
  echo "error: /bin/busybox is dynamically linked (install busybox-static)" >&2
  exit 1
fi
# Bochs's only headless display here (rfb, a VNC server) listens on every interface:
# it runs in a network namespace of its own, which nothing outside can reach.
own_network=(unshare --net)
((EUID == 0)) || own_network+=(--map-root-user)
"${own_network[@]}" true 2>/dev/null || { echo "error: cannot give Bochs its own network namespace (unshare)" >&2; exit 1; }
# (The list is read whole first: grep -q stopping early would end swg_tests with SIGPIPE,
# which pipefail reports as a failure.)
test_list="$("$tests_bin" --gtest_list_tests)"
if ! grep -q '^LaneKernelSelection\.' <<<"$test_list"; then
  echo "error: $tests_bin has no LaneKernelSelection tests" >&2
  exit 1
fi

# --- Debian kernel (cached) ---------------------------------------------------------------
vmlinuz="$work/vmlinuz"
if [[ ! -s "$vmlinuz" ]]; then
  kpkg="$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')"
  if [[ -z "$kpkg" ]]; then
    apt-get update
    kpkg="$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')"
  fi
  mkdir -p "$work/debs"
  (cd "$work/debs" && apt-get download "$kpkg")
  rm -rf "$work/kernel-pkg"
  dpkg-deb -x "$work/debs/${kpkg}"_*.deb "$work/kernel-pkg"
  cp "$work/kernel-pkg"/boot/vmlinuz-* "$vmlinuz.tmp"
  mv "$vmlinuz.tmp" "$vmlinuz"
  rm -rf "$work/kernel-pkg"
fi

# --- initramfs: busybox, swg_tests, its libraries, /init ---------------------------------
root="$work/initramfs"
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
cp /bin/busybox "$root/bin/busybox"
cp "$tests_bin" "$root/swg_tests"
ldd "$tests_bin" | awk '/=> \// {print $3} /^\t\/[^ ]+ \(/ {print $1}' | while read -r lib; do
  cp -L --parents "$lib" "$root"
done
[[ -e "$root/lib64/ld-linux-x86-64.so.2" ]] || { echo "error: dynamic loader not copied" >&2; exit 1; }
cat >"$root/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
echo "SWG-BOCHS-CPU \$(grep -m1 '^model name' /proc/cpuinfo)"
echo "SWG-BOCHS-FLAGS \$(grep -m1 '^flags' /proc/cpuinfo)"
cd /tmp
SWG_TEST_GROUPS_PERCENT=50 /swg_tests --gtest_color=no '--gtest_filter=$filter'
echo "$end_marker rc=\$?"
echo "$last_line"
poweroff -f  # halts only: without ACPI the guest cannot power Bochs off, the script stops it
EOF
chmod 755 "$root/init"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet -R 0:0) | gzip -6 >"$work/initrd.gz"

# --- ISO with isolinux --------------------------------------------------------------------
iso="$work/iso"
rm -rf "$iso"
mkdir -p "$iso/isolinux"
cp /usr/lib/ISOLINUX/isolinux.bin /usr/lib/syslinux/modules/bios/ldlinux.c32 "$iso/isolinux/"
cp "$vmlinuz" "$iso/vmlinuz"
cp "$work/initrd.gz" "$iso/initrd.gz"
# clearcpuid=xsaves,xsavec: Bochs 2.7 reports the standard XSAVE area size (2688) in
# CPUID(0xD,1).EBX where the compacted size (2432) belongs; Linux 6.1 then fails its XSAVE
# consistency check and turns XSAVE off, and with it AVX, AVX2 and AVX-512. Without the
# compacted format it uses standard XSAVE, whose size Bochs reports right.
cat >"$iso/isolinux/isolinux.cfg" <<'EOF'
DEFAULT linux
PROMPT 0
TIMEOUT 0
LABEL linux
  KERNEL /vmlinuz
  APPEND initrd=/initrd.gz console=ttyS0,115200 clearcpuid=xsaves,xsavec quiet loglevel=3 acpi=off mitigations=off nokaslr
EOF
genisoimage -quiet -o "$work/boot.iso" -b isolinux/isolinux.bin -c isolinux/boot.cat \
  -no-emul-boot -boot-load-size 4 -boot-info-table "$iso"

# --- Bochs --------------------------------------------------------------------------------
serial="$work/serial.log"
cat >"$work/bochsrc" <<EOF
memory: guest=512, host=512
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
cpu: model=$cpu_model, count=1, ips=100000000, reset_on_triple_fault=0
clock: sync=none, time0=local
pci: enabled=1, chipset=i440fx
ata0-master: type=cdrom, path=$work/boot.iso, status=inserted
boot: cdrom
display_library: rfb, options="timeout=0"
speaker: enabled=0
com1: enabled=1, mode=file, dev=$serial
log: $work/bochs.log
panic: action=fatal
error: action=report
info: action=ignore
debug: action=ignore
EOF
# This Debian Bochs has its debugger built in and stops at its prompt: "continue" at once.
echo continue >"$work/debugger.rc"
rm -f "$serial"
echo "booting in Bochs ($cpu_model), serial log: $serial"
start=$SECONDS
# A CPU-time limit, not a wall-clock one: on a shared, loaded machine the emulator gets a fraction
# of a core and a healthy run can pass 2700 s of wall time; a hung guest still spins and is stopped.
timeout "$((2 * bochs_timeout))" "${own_network[@]}" prlimit --cpu="$bochs_timeout" bochs -q -f "$work/bochsrc" -rc "$work/debugger.rc" </dev/null >"$work/bochs.out" 2>&1 &
bochs_pid=$!
# The guest boots without ACPI (acpi=off: ~15 % less emulated boot), so it cannot power Bochs
# off: Bochs is stopped once the guest's last line is in the serial log, or a few seconds after
# a kernel panic (the guest would otherwise sit there until the timeout).
while kill -0 "$bochs_pid" 2>/dev/null; do
  grep -q "^$last_line" "$serial" 2>/dev/null && break
  if grep -q "Kernel panic" "$serial" 2>/dev/null; then
    sleep 5
    break
  fi
  sleep 2
done
kill "$bochs_pid" 2>/dev/null || true
wait "$bochs_pid" 2>/dev/null || true
echo "Bochs ran $((SECONDS - start)) s"

# --- Verdict ------------------------------------------------------------------------------
fail() {
  echo "FAIL: $1" >&2
  echo "--- last 40 lines of $serial ---" >&2
  tail -n 40 "$serial" >&2 2>/dev/null || true
  echo "--- last 10 lines of $work/bochs.out ---" >&2
  tail -n 10 "$work/bochs.out" >&2 || true
  exit 1
}
tr -d '\r' <"$serial" >"$serial.txt" 2>/dev/null || fail "no serial log (Bochs did not start?)"
grep -q '^SWG-BOCHS-FLAGS .*\bavx512f\b' "$serial.txt" || fail "guest /proc/cpuinfo has no avx512f flag"
grep -q "^$end_marker" "$serial.txt" || fail "the guest never finished the tests (limit ${bochs_timeout} CPU s or $((2 * bochs_timeout)) s of wall time?)"
ok=$(grep -c '^\[       OK \] SupportedKernels/.*avx512' "$serial.txt" || true)
((ok >= 4)) || fail "only $ok avx512 test cases passed (expected at least 4)"
grep -q '^\[  PASSED  \]' "$serial.txt" || fail "gtest did not report PASSED"
! grep -q '^\[  FAILED  \]' "$serial.txt" || fail "gtest reported failures"
grep -q "^$end_marker rc=0" "$serial.txt" || fail "swg_tests exited non-zero"
grep -E '^SWG-BOCHS-CPU|^\[==========\]|^\[  PASSED  \]|OK \] SupportedKernels' "$serial.txt"
echo "guest AVX-512 flags: $(grep -m1 '^SWG-BOCHS-FLAGS' "$serial.txt" | grep -o 'avx512[a-z0-9_]*' | tr '\n' ' ')"
echo "OK: $ok avx512 kernel cases passed on an emulated $cpu_model (real AVX-512 code)"
