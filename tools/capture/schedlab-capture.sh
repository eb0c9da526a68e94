#!/usr/bin/env bash
# schedlab-capture.sh: record a scheduler trace (and the EEVDF state bpftrace can read) for
# schedlab's import and replay. Run `schedlab-capture.sh --help` for the options.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: schedlab-capture.sh [OPTIONS] -d SECONDS
       schedlab-capture.sh [OPTIONS] -- COMMAND [ARGS...]

Records the scheduler's tracepoints through tracefs while COMMAND runs (or for SECONDS), and,
when bpftrace is installed, the EEVDF state of each task as it leaves a CPU (vruntime, deadline,
vlag/vprot, slice, weight, and its cfs_rq's zero_vruntime, sum_w_vruntime, sum_weight, nr_queued,
load and curr), using schedlab-eevdf.bt next to this script. Needs root, tracefs, and for the
EEVDF state bpftrace with kernel BTF (/sys/kernel/btf/vmlinux).

Options:
  -d, --duration SECONDS   record for SECONDS (decimals allowed), no command
  -c, --cpus LIST          record these CPUs only, e.g. 1 or 0-3,6 (default: all)
      --comm PREFIX        EEVDF state only for tasks whose comm starts with PREFIX (default: all
                           tasks on the recorded CPUs). The tracepoints always keep every task of
                           the recorded CPUs: the replay needs to know who else ran. Both files
                           grow with the switch rate (about 300 bytes per switch each): on a busy
                           machine use --comm and --cpus, and keep captures short.
  -o, --output DIR         where to write (default: ./schedlab-capture-DATE-TIME); must be empty
                           or not exist
  -b, --buffer-kb N        tracefs ring buffer per CPU in KiB (default 20000)
      --events LIST        tracepoints, comma-separated (default: sched_switch,sched_waking,
                           sched_wakeup,sched_wakeup_new,sched_migrate_task,sched_process_fork,
                           sched_process_exit,sched_stat_runtime)
      --no-eevdf           do not run the EEVDF-state dump
      --no-bandwidth-timer do not record the CFS bandwidth period timer (by default its
                           expiries are recorded: timer:hrtimer_expire_entry filtered to
                           sched_cfs_period_timer, about 10 records a second per throttled
                           group; the replay unthrottles there)
                           cgroup:cgroup_attach_task is recorded too, when the kernel has it
                           (a task moved into a cgroup; the replay moves it there)
      --cpu-avg            also record each CPU's root cfs_rq PELT averages at its switches
                           (schedlab-cpu-avg.bt, kept in a bpftrace map and written at the end,
                           so bpftrace does not wake during the recording) into cpu-avg.txt, for
                           `schedlab replay DIR/trace.txt --cpu-avg DIR/cpu-avg.txt`
      --balance            also record each run of the SCHED softirq with its CPU's balance state
                           before and after (schedlab-balance.bt: sd->nr_balance_failed,
                           balance_interval, last_balance; kept in a map, written at the end)
                           into balance.txt: the periodic balance passes that moved nothing,
                           which the trace does not show
      --dat                also save the buffer as a trace-cmd .dat (needs trace-cmd)
  -h, --help               this text

Writes to the output directory:
  trace.txt         the tracefs text (kernel TP_printk form); its first line names the trace clock
  eevdf-state.txt   the bpftrace dump (when bpftrace ran)
  cpu-avg.txt       each CPU's root cfs_rq averages (with --cpu-avg)
  balance.txt       each SCHED softirq's balance state before and after (with --balance)
  workload.txt      what COMMAND printed (stdout and stderr)
  capture.txt       kernel, CPUs, clock, options, events lost, and the command line used
  trace.dat         with --dat

Clocks: the trace clock is set to `mono` for the capture (bpftrace's timestamps are CLOCK_MONOTONIC,
which `mono` reads too), so the dump and the trace line up; the previous clock is put back.
Everything changed in tracefs (clock, buffer size, enabled events, CPU mask, tracing_on) is
restored on exit, Ctrl-C included. The ring buffer is cleared when the capture starts.
Ctrl-C during the recording stops it early and still saves what was recorded.

Then:  schedlab import DIR/trace.txt --eevdf DIR/eevdf-state.txt
       schedlab replay DIR/trace.txt
Example: sudo schedlab-capture.sh -c 1 --comm k_ -o /tmp/cap -- \
           sh -c 'taskset -c 1 ./hog k_a & taskset -c 1 nice -n 2 ./hog k_b & wait'
EOF
}

die() {
  echo "schedlab-capture: $*" >&2
  exit 1
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
duration=""
cpus=""
comm=""
out=""
buffer_kb=20000
events="sched_switch,sched_waking,sched_wakeup,sched_wakeup_new,sched_migrate_task,sched_process_fork,sched_process_exit,sched_stat_runtime"
eevdf=1
bw_timer=1
cpu_avg=0
balance=0
dat=0
cmd=()

while [ "$#" -gt 0 ]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    -d | --duration) duration="${2:?--duration needs SECONDS}"; shift 2 ;;
    -c | --cpus) cpus="${2:?--cpus needs a LIST}"; shift 2 ;;
    --comm) comm="${2?--comm needs a PREFIX}"; shift 2 ;;
    -o | --output) out="${2:?--output needs a DIR}"; shift 2 ;;
    -b | --buffer-kb) buffer_kb="${2:?--buffer-kb needs N}"; shift 2 ;;
    --events) events="${2:?--events needs a LIST}"; shift 2 ;;
    --no-eevdf) eevdf=0; shift ;;
    --no-bandwidth-timer) bw_timer=0; shift ;;
    --cpu-avg) cpu_avg=1; shift ;;
    --balance) balance=1; shift ;;
    --dat) dat=1; shift ;;
    --) shift; cmd=("$@"); break ;;
    *) echo "schedlab-capture: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

if [ -n "$duration" ] && [ "${#cmd[@]}" -gt 0 ]; then
  die "give either --duration or a command after --, not both"
fi
if [ -z "$duration" ] && [ "${#cmd[@]}" -eq 0 ]; then
  echo "schedlab-capture: nothing to record: give --duration SECONDS or -- COMMAND (see --help)" >&2
  exit 2
fi
if [ -n "$duration" ] && ! [[ "$duration" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
  die "--duration expects seconds (e.g. 2 or 1.5), got '$duration'"
fi
[[ "$buffer_kb" =~ ^[0-9]+$ ]] && [ "$buffer_kb" -gt 0 ] || die "--buffer-kb expects a positive number of KiB"
[ "$(id -u)" = 0 ] || die "needs root (tracefs and bpftrace): run it with sudo"

# --- tracefs ---
T=""
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
  if [ -e "$d/trace" ]; then T="$d"; break; fi
done
if [ -z "$T" ]; then
  mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
  [ -e /sys/kernel/tracing/trace ] && T=/sys/kernel/tracing
fi
[ -n "$T" ] || die "tracefs not found at /sys/kernel/tracing or /sys/kernel/debug/tracing, and mounting it failed (kernel without CONFIG_FTRACE / CONFIG_TRACING?)"
for e in ${events//,/ }; do
  [ -d "$T/events/sched/$e" ] || die "tracepoint sched:$e is not in $T/events/sched (check --events)"
done

# --- the CFS bandwidth period timer: its expiries are where the kernel unthrottles, which no
# sched tracepoint shows. The hrtimer event is filtered to that one function by its address.
bw_timer_addr=""
bw_filter="$T/events/timer/hrtimer_expire_entry/filter"
if [ "$bw_timer" = 1 ]; then
  bw_timer_addr="$(awk '$3 == "sched_cfs_period_timer" {print $1; exit}' /proc/kallsyms 2>/dev/null)"
  if [ -z "$bw_timer_addr" ] || [ "$bw_timer_addr" = 0000000000000000 ] || [ ! -w "$bw_filter" ]; then
    echo "schedlab-capture: no sched_cfs_period_timer in /proc/kallsyms or no timer:hrtimer_expire_entry: the bandwidth timer is not recorded" >&2
    bw_timer=0
    bw_timer_addr=""
  fi
fi
saved_bw_filter=""
[ "$bw_timer" = 1 ] && saved_bw_filter="$(cat "$bw_filter")"

# --- CPUs: the list → tracefs cpumask (32-bit hex words, highest first) and a bpftrace mask ---
ncpu="$(nproc --all)"
cpu_list=()
if [ -n "$cpus" ]; then
  IFS=, read -r -a parts <<<"$cpus"
  for p in "${parts[@]}"; do
    if [[ "$p" =~ ^([0-9]+)-([0-9]+)$ ]]; then
      for ((c = BASH_REMATCH[1]; c <= BASH_REMATCH[2]; c++)); do cpu_list+=("$c"); done
    elif [[ "$p" =~ ^[0-9]+$ ]]; then
      cpu_list+=("$p")
    else
      die "--cpus expects a list like 1 or 0-3,6, got '$cpus'"
    fi
  done
  for c in "${cpu_list[@]}"; do
    [ "$c" -lt "$ncpu" ] || die "--cpus: CPU $c does not exist (this machine has $ncpu)"
  done
fi
cpumask_words() {
  local -a w=()
  local i n=$(((ncpu + 31) / 32)) s=""
  for ((i = 0; i < n; i++)); do w[i]=0; done
  for c in "${cpu_list[@]}"; do w[c / 32]=$((w[c / 32] | (1 << (c % 32)))); done
  for ((i = n - 1; i >= 0; i--)); do s+="$(printf '%08x' "${w[i]}")"; [ "$i" -gt 0 ] && s+=","; done
  echo "$s"
}
bt_mask=0
if [ "${#cpu_list[@]}" -gt 0 ]; then
  for c in "${cpu_list[@]}"; do
    if [ "$c" -ge 64 ]; then bt_mask=0; break; fi
    bt_mask=$((bt_mask | (1 << c)))
  done
fi

# --- output directory ---
[ -n "$out" ] || out="./schedlab-capture-$(date +%Y%m%d-%H%M%S)"
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  die "output directory $out exists and is not empty"
fi
mkdir -p "$out" || die "cannot create $out"

# --- bpftrace availability ---
if [ "$eevdf" = 1 ]; then
  if ! command -v bpftrace >/dev/null 2>&1; then
    echo "schedlab-capture: bpftrace not found: recording tracepoints only (install bpftrace for the EEVDF state)" >&2
    eevdf=0
  elif [ ! -r /sys/kernel/btf/vmlinux ]; then
    echo "schedlab-capture: no kernel BTF (/sys/kernel/btf/vmlinux): recording tracepoints only" >&2
    eevdf=0
  fi
fi
if [ "$cpu_avg" = 1 ] && { ! command -v bpftrace >/dev/null 2>&1 || [ ! -r /sys/kernel/btf/vmlinux ]; }; then
  die "--cpu-avg needs bpftrace and the kernel's BTF (/sys/kernel/btf/vmlinux)"
fi
if [ "$balance" = 1 ] && { ! command -v bpftrace >/dev/null 2>&1 || [ ! -r /sys/kernel/btf/vmlinux ]; }; then
  die "--balance needs bpftrace and the kernel's BTF (/sys/kernel/btf/vmlinux)"
fi
if [ "$dat" = 1 ] && ! command -v trace-cmd >/dev/null 2>&1; then
  die "--dat needs trace-cmd (apt-get install trace-cmd)"
fi

# --- save tracefs state, restore on exit ---
saved_on="$(cat "$T/tracing_on")"
saved_clock="$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$T/trace_clock")"
saved_kb="$(sed -n 's/.*expanded: \([0-9]*\).*/\1/p' "$T/buffer_size_kb")"
[ -n "$saved_kb" ] || saved_kb="$(awk '{print $1}' "$T/buffer_size_kb")"
saved_mask="$(cat "$T/tracing_cpumask")"
saved_events="$(cat "$T/set_event")"
bt_pid=""
ca_pid=""
lb_pid=""
# bpftrace ends on SIGINT once it has installed its handler (by the time it prints its header); an
# asynchronous command of a script starts with SIGINT ignored, so before that only SIGTERM works.
# Escalate if it does not end.
running() { # a live process, not a zombie waiting for `wait`
  local st
  st="$(sed -n 's/^.*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)"
  [ -n "$st" ] && [ "$st" != Z ]
}
# stop_one PID FILE HEADER: ends the bpftrace writing FILE, which printed HEADER once attached.
stop_one() {
  [ -n "$1" ] || return 0
  if grep -q "^$3" "$2" 2>/dev/null; then
    kill -INT "$1" 2>/dev/null || true # attached: it prints what it holds and exits
  else
    kill -TERM "$1" 2>/dev/null || true # still compiling or attaching
  fi
  for _ in $(seq 1 100); do
    running "$1" || break
    sleep 0.1
  done
  if running "$1"; then
    kill -TERM "$1" 2>/dev/null || true
    sleep 1
    kill -KILL "$1" 2>/dev/null || true
  fi
  wait "$1" 2>/dev/null || true
}
stop_bpftrace() {
  stop_one "$bt_pid" "$out/eevdf-state.txt" '# schedlab-eevdf'
  bt_pid=""
  stop_one "$ca_pid" "$out/cpu-avg.txt" '# schedlab-cpu-avg'
  ca_pid=""
  stop_one "$lb_pid" "$out/balance.txt" '# schedlab-balance'
  lb_pid=""
}
restored=0
restore() {
  [ "$restored" = 1 ] && return
  restored=1
  stop_bpftrace
  echo 0 >"$T/tracing_on"
  echo >"$T/set_event"
  if [ -n "$saved_events" ]; then
    while IFS= read -r e; do echo "$e" >>"$T/set_event" 2>/dev/null || true; done <<<"$saved_events"
  fi
  if [ "$bw_timer" = 1 ]; then
    case "$saved_bw_filter" in
      none | "") echo 0 >"$bw_filter" 2>/dev/null || true ;;
      *) echo "$saved_bw_filter" >"$bw_filter" 2>/dev/null || true ;;
    esac
  fi
  echo "$saved_mask" >"$T/tracing_cpumask" 2>/dev/null || true
  [ -n "$saved_clock" ] && echo "$saved_clock" >"$T/trace_clock" 2>/dev/null || true
  echo "$saved_kb" >"$T/buffer_size_kb" 2>/dev/null || true
  echo "$saved_on" >"$T/tracing_on"
}
trap restore EXIT
interrupted=0
# Before and after the recording Ctrl-C aborts (the EXIT trap restores tracefs); during it, it
# only ends the recording early.
trap 'echo "schedlab-capture: interrupted" >&2; exit 130' INT TERM

# --- configure ---
clock=mono
if ! grep -qw mono "$T/trace_clock"; then
  clock="$saved_clock"
  echo "schedlab-capture: this kernel has no 'mono' trace clock; keeping '$clock' (the importer estimates the offset to bpftrace's clock)" >&2
fi
echo 0 >"$T/tracing_on"
echo "$clock" >"$T/trace_clock"
echo "$buffer_kb" >"$T/buffer_size_kb" || die "cannot set a ${buffer_kb} KiB buffer per CPU"
[ "${#cpu_list[@]}" -gt 0 ] && echo "$(cpumask_words)" >"$T/tracing_cpumask"
echo >"$T/set_event"
for e in ${events//,/ }; do echo "sched:$e" >>"$T/set_event"; done
cgroup_moves=0
if [ -d "$T/events/cgroup/cgroup_attach_task" ]; then
  echo "cgroup:cgroup_attach_task" >>"$T/set_event" && cgroup_moves=1
fi
if [ "$bw_timer" = 1 ]; then
  echo "function == 0x$bw_timer_addr" >"$bw_filter" || die "cannot filter timer:hrtimer_expire_entry (try --no-bandwidth-timer)"
  echo "timer:hrtimer_expire_entry" >>"$T/set_event"
fi
echo >"$T/trace"

# --- bpftrace first: it takes seconds to compile and attach ---
# start_bpftrace OUT ERR HEADER WHAT -- COMMAND...: runs COMMAND in its own session writing OUT
# (stderr to ERR), waits until OUT shows HEADER (attached), and sets started_pid; dies with
# bpftrace's errors if it does not start.
start_bpftrace() {
  local o=$1 e=$2 header=$3 what=$4
  shift 5
  setsid "$@" >"$o" 2>"$e" &
  started_pid=$!
  for _ in $(seq 1 600); do
    grep -q "^$header" "$o" 2>/dev/null && break
    running "$started_pid" || break
    sleep 0.1
  done
  if ! grep -q "^$header" "$o" 2>/dev/null; then
    cat "$e" >&2
    die "bpftrace ($what) did not start (its errors are above and in $e)"
  fi
}
if [ "$eevdf" = 1 ]; then
  start_bpftrace "$out/eevdf-state.txt" "$out/bpftrace.err" '# schedlab-eevdf' 'EEVDF state' -- \
    bpftrace "$here/schedlab-eevdf.bt" "$comm" "${#comm}" "$bt_mask" "$clock"
  bt_pid=$started_pid
fi
if [ "$cpu_avg" = 1 ]; then
  # The samples stay in a map until bpftrace exits: 131072 of them, about a minute of two busy CPUs.
  start_bpftrace "$out/cpu-avg.txt" "$out/bpftrace-cpu-avg.err" '# schedlab-cpu-avg' 'CPU averages' -- \
    env BPFTRACE_MAP_KEYS_MAX=131072 bpftrace "$here/schedlab-cpu-avg.bt"
  ca_pid=$started_pid
fi
if [ "$balance" = 1 ]; then
  start_bpftrace "$out/balance.txt" "$out/bpftrace-balance.err" '# schedlab-balance' 'balance passes' -- \
    env BPFTRACE_MAP_KEYS_MAX=131072 bpftrace "$here/schedlab-balance.bt"
  lb_pid=$started_pid
fi

# --- record ---
start_ns="$(date +%s%N)"
trap 'interrupted=1' INT TERM
echo 1 >"$T/tracing_on"
if [ -n "$duration" ]; then
  echo "schedlab-capture: recording for $duration s (Ctrl-C stops early)" >&2
  sleep "$duration" || true
  status=0
else
  echo "schedlab-capture: recording while: ${cmd[*]}" >&2
  set +e
  "${cmd[@]}" 2>&1 | tee "$out/workload.txt"
  status=${PIPESTATUS[0]}
  set -e
fi
echo 0 >"$T/tracing_on"
trap 'echo "schedlab-capture: interrupted" >&2; exit 130' INT TERM
end_ns="$(date +%s%N)"
[ "$interrupted" = 1 ] && echo "schedlab-capture: interrupted: saving what was recorded" >&2

if [ -n "$bt_pid$ca_pid$lb_pid" ]; then
  stop_bpftrace
  # bpftrace 0.17 warns about RLIMIT_MEMLOCK on kernels that account BPF memory to cgroups.
  for err in "$out/bpftrace.err" "$out/bpftrace-cpu-avg.err" "$out/bpftrace-balance.err"; do
    [ -e "$err" ] || continue
    grep -v 'RLIMIT_MEMLOCK' "$err" >"$err.tmp" || true
    mv "$err.tmp" "$err"
    if [ -s "$err" ]; then cat "$err" >&2; else rm -f "$err"; fi
  done
fi

# --- save ---
{
  echo "# trace_clock: $clock"
  cat "$T/trace"
} >"$out/trace.txt"
if [ "$dat" = 1 ]; then
  trace-cmd extract -o "$out/trace.dat" >/dev/null 2>&1 || echo "schedlab-capture: trace-cmd extract failed; trace.dat not written" >&2
fi
lost=""
for s in "$T"/per_cpu/cpu*/stats; do
  c="${s%/stats}"
  c="${c##*/cpu}"
  o="$(awk '/^overrun:/ {print $2}' "$s")"
  d="$(awk '/^dropped events:/ {print $3}' "$s")"
  if [ "${o:-0}" != 0 ] || [ "${d:-0}" != 0 ]; then lost+=" cpu$c:overrun=$o,dropped=$d"; fi
done
{
  echo "kernel: $(uname -r)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host_cpus: $ncpu"
  echo "cpus: ${cpus:-all}"
  echo "trace_clock: $clock"
  echo "eevdf_dump: $([ "$eevdf" = 1 ] && echo "bpftrace $(bpftrace --version 2>/dev/null | awk '{print $2}'), comm prefix '${comm}'" || echo none)"
  echo "cpu_avg_dump: $([ "$cpu_avg" = 1 ] && echo "schedlab-cpu-avg.bt, $(grep -c '^@c\[' "$out/cpu-avg.txt") samples" || echo none)"
  echo "balance_dump: $([ "$balance" = 1 ] && echo "schedlab-balance.bt, $(grep -c '^@s\[' "$out/balance.txt") records" || echo none)"
  echo "events: $events"
  echo "cgroup_moves: $([ "$cgroup_moves" = 1 ] && echo cgroup:cgroup_attach_task || echo none)"
  echo "bandwidth_timer: $([ "$bw_timer" = 1 ] && echo "timer:hrtimer_expire_entry of sched_cfs_period_timer (0x$bw_timer_addr)" || echo none)"
  echo "buffer_kb: $buffer_kb"
  echo "recorded_ms: $(((end_ns - start_ns) / 1000000))"
  if [ -n "$duration" ]; then echo "duration_s: $duration"; else echo "command: ${cmd[*]}"; echo "exit_status: $status"; fi
  echo "interrupted: $([ "$interrupted" = 1 ] && echo yes || echo no)"
  echo "events_lost:${lost:- none}"
} >"$out/capture.txt"
[ -n "$lost" ] && echo "schedlab-capture: events were lost ($lost); try a larger --buffer-kb, fewer --events or fewer --cpus" >&2

restore
trap - EXIT
echo "schedlab-capture: wrote $out ($(du -sh "$out" | cut -f1)):" >&2
ls -1 "$out" >&2
