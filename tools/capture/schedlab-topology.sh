#!/bin/sh
# schedlab-topology.sh [OUT]                       (root; bpftrace >= 0.17, bpftool, kernel BTF)
#
# This machine's scheduler-domain topology, for schedlab's topology model
# (wasm-engine/engine/src/sched/topology): the sysfs CPU topology and cache sharing, then the
# domains each CPU is attached to as `schedlab-topology.bt` reads them through BTF (its header
# explains the lines). Writes OUT (default: topology.txt); prints the command it ran.
#
# debugfs' /sys/kernel/debug/sched/domains is the usual source; this works where debugfs is not
# readable (containers, locked-down VMs) and gives the fields debugfs does not show (groups,
# capacities, balance state, sd_llc_*).
set -eu

out=${1:-topology.txt}
here=$(cd "$(dirname "$0")" && pwd)
btf=/sys/kernel/btf/vmlinux
ncpu=$(getconf _NPROCESSORS_ONLN)

# Offset of a per-CPU variable in .data..percpu (BTF DATASEC), 0 when BTF does not have it.
percpu_off() {
	off=$(bpftool btf dump file "$btf" 2>/dev/null |
		sed -n "s/.*offset=\([0-9]*\) size=[0-9]* (VAR '$1')\$/\1/p" | head -n 1)
	echo "${off:-0}"
}

offs="$(percpu_off runqueues) $(percpu_off sd_llc_size) $(percpu_off sd_llc_id)"
offs="$offs $(percpu_off sd_share_id) $(percpu_off sd_llc) $(percpu_off sd_llc_shared)"
offs="$offs $(percpu_off sd_numa)"
case "$offs" in 0\ *) offs="" ;; esac

{
	echo "# schedlab-topology.sh"
	echo "# uname -r: $(uname -r)"
	echo "# uname -v: $(uname -v)"
	echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# online: $(cat /sys/devices/system/cpu/online)"
	echo "# percpu offsets (runqueues sd_llc_size sd_llc_id sd_share_id sd_llc sd_llc_shared sd_numa): ${offs:-none}"
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		[ -d "$c/topology" ] || continue
		n=${c##*/cpu}
		for f in "$c"/topology/*; do
			case "${f##*/}" in
				*_list | *_id) echo "T cpu=$n ${f##*/}=$(cat "$f")" ;;
			esac
		done
		for i in "$c"/cache/index*; do
			[ -d "$i" ] || continue
			echo "C cpu=$n ${i##*/} level=$(cat "$i/level") type=$(cat "$i/type")" \
				"size=$(cat "$i/size")" "shared_cpu_list=$(cat "$i/shared_cpu_list")"
		done
	done
	for node in /sys/devices/system/node/node[0-9]*; do
		[ -d "$node" ] || continue
		echo "N ${node##*/} cpulist=$(cat "$node/cpulist") distance=$(cat "$node/distance" | tr ' ' ,)"
	done
	echo "# bpftrace schedlab-topology.bt $ncpu $offs"
	# shellcheck disable=SC2086 # the offsets are separate arguments
	bpftrace "$here/schedlab-topology.bt" "$ncpu" $offs 2>/dev/null |
		grep -v '^Attaching' | grep -v '^$'
} >"$out"
echo "wrote $out: bpftrace $here/schedlab-topology.bt $ncpu $offs" >&2
