#!/usr/bin/env bash
# schedlab-smp-cpuavg.sh OUTROOT [NAME...]          (root; bpftrace 0.17 with kernel BTF, gcc)
#
# Captures the five `traces/linux-6.18-smp` workloads again, each with a dump of both CPUs'
# root cfs_rq PELT averages beside it (schedlab-cpu-avg.bt), for
#   schedlab replay OUTROOT/NAME/trace.dat --cpu-avg OUTROOT/NAME/cpu-avg.txt --cgroups LAYOUT
# Each capture: the dump starts, 3 s pass (bpftrace's own start-up load decays and the machine
# settles), then schedlab-capture.sh records the workload (trace clock `mono`, as the dump's
# nsecs; no EEVDF dump: on two CPUs bpftrace's per-switch work competes with the workload), then
# the dump stops. NAMEs pick workloads (default: all five). The workers are
# traces/linux-6.18-ab/workers.c, built to /tmp/schedlab-workers. cgroup-shares-smp needs the
# cgroup v1 cpu controller at /sys/fs/cgroup/cpu.
set -euo pipefail
root=${1:?usage: schedlab-smp-cpuavg.sh OUTROOT [NAME...]}
shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
W=/tmp/schedlab-workers
gcc -O2 -o "$W" "$repo/traces/linux-6.18-ab/workers.c"
CG=/sys/fs/cgroup/cpu
A="taskset -c 0,1"
# A command run inside cgroup $1 on CPUs 0-1.
incg() { local g=$1; shift; echo "sh -c 'echo \$\$ > $CG/$g/tasks; exec $A $*'"; }
workload() {
  case "$1" in
    three-hogs-two-cpus) echo "$A $W hog k_a 1.5 & $A $W hog k_b 1.5 & $A $W hog k_c 1.5 & wait" ;;
    nice-imbalance-smp) echo "$A $W hog k_a 1.5 & $A nice -n 5 $W hog k_b 1.5 & $A nice -n 5 $W hog k_c 1.5 & $A nice -n 5 $W hog k_d 1.5 & wait" ;;
    pipe-pair-and-hog) echo "$A $W pipe k_p k_q 1.5 50 & $A $W hog k_h 1.5 & wait" ;;
    sleepers-and-hogs-smp) echo "$A $W sleeper k_s 1.5 300 700 & $A $W sleeper k_t 1.5 1000 2000 & $A $W hog k_a 1.5 & $A $W hog k_b 1.5 & wait" ;;
    cgroup-shares-smp) echo "$(incg sl_A "$W" hog k_a 1.5) & $(incg sl_B "$W" hog k_b 1.5) & $(incg sl_B "$W" hog k_c 1.5) & $(incg sl_B "$W" hog k_d 1.5) & wait" ;;
    *) echo "schedlab-smp-cpuavg: unknown workload $1" >&2; exit 2 ;;
  esac
}
names=("$@")
[ "${#names[@]}" -gt 0 ] || names=(three-hogs-two-cpus nice-imbalance-smp pipe-pair-and-hog sleepers-and-hogs-smp cgroup-shares-smp)
for n in "${names[@]}"; do
  cmd=$(workload "$n")
  if [ "$n" = cgroup-shares-smp ]; then
    mkdir -p "$CG/sl_A" "$CG/sl_B"
    echo 2048 > "$CG/sl_A/cpu.shares"
    echo 1024 > "$CG/sl_B/cpu.shares"
  fi
  echo "== $n"
  # The samples stay in a bpftrace map until it exits (no wakeups of bpftrace during the capture).
  BPFTRACE_MAP_KEYS_MAX=131072 bpftrace "$here/schedlab-cpu-avg.bt" > "/tmp/schedlab-cpu-avg.$$.txt" 2>/dev/null &
  bt=$!
  sleep 3
  bash "$here/schedlab-capture.sh" --no-eevdf --dat -o "$root/$n" -- bash -c "$cmd"
  sleep 0.5
  kill -INT "$bt"
  wait "$bt" 2>/dev/null || true
  mv "/tmp/schedlab-cpu-avg.$$.txt" "$root/$n/cpu-avg.txt"
  if [ "$n" = cgroup-shares-smp ]; then
    rmdir "$CG/sl_A" "$CG/sl_B" 2>/dev/null || true
  fi
done
