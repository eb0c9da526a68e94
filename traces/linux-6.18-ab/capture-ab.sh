#!/bin/bash
# capture-ab.sh OUTDIR SHARES_A   (run as root, on the 2-CPU VM)
#
# One ~1 s capture of the A/B workload on CPU 1, recorded for CPU 1 only:
#   k_a  hog                          in cgroup ab_A (cpu.shares = SHARES_A)
#   k_b  hog                          in cgroup ab_B (cpu.shares = 1024)
#   k_s  sleeper, 200 µs run / 800 µs sleep, in cgroup ab_S (cpu.shares = 1024)
# each `taskset -c 1`, started together, 1.0 s each (cgroup v1 `cpu` controller).
# For the capture's duration every other thread of the machine that may move is moved to CPU 0
# (`taskset -p -c 0`), its mask restored afterwards, so that CPU 1 holds the workload and its
# per-CPU kernel threads; one capture at a time under the machine-wide tracefs lock.
# Writes OUTDIR/trace.dat (trace-cmd extract), OUTDIR/workload.txt, OUTDIR/kernel.txt.
set -eu
out=$1; shares_a=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
W=/tmp/ab-workers
gcc -O2 -o $W "$here/workers.c"
T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs nodev $T
CG=/sys/fs/cgroup/cpu
exec 9>/tmp/schedlab-capture.lock
flock 9
saved=$(mktemp)
restore() {
  while read -r tid mask; do taskset -p "$mask" "$tid" >/dev/null 2>&1 || true; done < "$saved"
  rm -f "$saved"
  echo 0 > $T/tracing_on; echo > $T/set_event; echo 3 > $T/tracing_cpumask
  for g in ab_A ab_B ab_S; do rmdir "$CG/$g" 2>/dev/null || true; done
}
trap restore EXIT
# Every thread to CPU 0 (per-CPU kernel threads refuse; they stay).
for d in /proc/[0-9]*/task/[0-9]*; do
  tid=${d##*/}
  mask=$(taskset -p "$tid" 2>/dev/null | awk '{print $NF}') || continue
  [ -n "$mask" ] || continue
  if taskset -p -c 0 "$tid" >/dev/null 2>&1; then echo "$tid $mask" >> "$saved"; fi
done
for g in ab_A ab_B ab_S; do mkdir -p "$CG/$g"; done
echo "$shares_a" > $CG/ab_A/cpu.shares; echo 1024 > $CG/ab_B/cpu.shares; echo 1024 > $CG/ab_S/cpu.shares
sleep 0.5
echo 0 > $T/tracing_on; echo > $T/trace; echo 20000 > $T/buffer_size_kb; echo 2 > $T/tracing_cpumask
echo 'sched:sched_switch sched:sched_waking sched:sched_wakeup sched:sched_wakeup_new sched:sched_migrate_task' > $T/set_event
incg() { local g=$1; shift; sh -c "echo \$\$ > $CG/$g/tasks; exec taskset -c 1 $*"; }
echo 1 > $T/tracing_on
incg ab_A $W hog k_a 1.0 > "$out/workload.txt" 2>&1 &
incg ab_B $W hog k_b 1.0 >> "$out/workload.txt" 2>&1 &
incg ab_S $W sleeper k_s 1.0 200 800 >> "$out/workload.txt" 2>&1 &
wait
echo 0 > $T/tracing_on
trace-cmd extract -o "$out/trace.dat" > /dev/null 2>&1
uname -r > "$out/kernel.txt"
echo "ab_A cpu.shares=$shares_a ab_B 1024 ab_S 1024" >> "$out/workload.txt"
ls -l "$out"
