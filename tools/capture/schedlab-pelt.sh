#!/bin/bash
# schedlab-pelt.sh COMM SECONDS > pelt.txt                      (root; bpftrace 0.17, kernel BTF)
#
# Per-call PELT ground truth for one task (comm exactly COMM) and the cfs_rq it is queued on, for
# SECONDS seconds: finds the task's struct sched_entity and cfs_rq from a sched_switch, then runs
# schedlab-pelt.bt (next to this script) with four hardware write watchpoints on the two avgs'
# last_update_time and util_avg. Start the workload first; the task must not migrate (pin it with
# taskset), since the watchpoints stay on the cfs_rq it had when found.
set -eu
comm=$1
secs=$2
dir=$(dirname "$0")
# task_struct address and se->cfs_rq of the first switch-out of COMM (offsets from BTF below)
line=$(timeout 5 bpftrace -e "tracepoint:sched:sched_switch /comm == \"$comm\"/ {
  printf(\"TASK %lld %lld\\n\", (int64)curtask, (int64)((struct task_struct *)curtask)->se.cfs_rq);
  exit(); }" 2>/dev/null | grep '^TASK')
task=$(echo "$line" | cut -d' ' -f2)
cfs=$(echo "$line" | cut -d' ' -f3)
# offsets in Linux 6.18.44: task_struct.se 128, sched_entity.avg 192, cfs_rq.avg 128,
# sched_avg.last_update_time 0, sched_avg.util_avg 48
off_se=$(bpftool btf dump file /sys/kernel/btf/vmlinux | awk '/STRUCT .task_struct. size/{t=1} t && /.se. type_id/{print $3; exit}')
[ "$off_se" = "bits_offset=1024" ] || { echo "task_struct.se moved ($off_se): update the offsets" >&2; exit 1; }
se_avg=$(( task + 128 + 192 ))
q_avg=$(( cfs + 128 ))
sym() { echo $(( 0x$(grep " $1$" /proc/kallsyms | cut -d" " -f1) )); }
timeout -s INT "$secs" taskset -c 0 bpftrace -- "$dir/schedlab-pelt.bt" \
  "$se_avg" "$(( se_avg + 48 ))" "$q_avg" "$(( q_avg + 48 ))" \
  "$(sym __update_load_avg_blocked_se)" "$(sym __update_load_avg_se)" \
  "$(sym __update_load_avg_cfs_rq)" "$(sym __pfx_update_rt_rq_load_avg)" || true
