# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# The memmap_init selftests' helpers for the multithreaded init: the CPUs
# and nodes a bind may use, the limits a test binds under (mi_limited),
# and the threads each event may report.  Sourced by memmap_lib.sh, never
# executed.

# Multithreaded init.  Chunks write at least two memory sections' worth
# of struct pages (a kernel thread's binds; a user task's helpers are
# threads it forks, and their chunks are four times as large, so that for
# its binds mi_threads_expected's most is an upper bound and a test that
# needs helpers binds 4 GiB).  No interface gives the section size:
# SECTION_SIZE_BITS of each architecture's asm/sparsemem.h is declared
# here, and on another architecture the tests that count threads skip
# (mi_threads_known).  Where the tails of compound pages share vmemmap
# pages (no altmap, more than two vmemmap pages of struct pages a compound
# page: vmemmap_can_optimize()), memmap init writes two vmemmap pages of
# each.  struct page is taken to be 64 bytes: a kernel whose struct page
# is not (KMSAN) shares none.  A range starting in a boot section
# (compound_nr_pages()'s early_section()) would share none either: no
# guest has one.
case "$(uname -m)" in
x86_64|riscv64|s390x) MI_SECTION_BITS=27 ;;
aarch64) MI_SECTION_BITS=$((MI_PAGE_SIZE == 65536 ? 29 : 27)) ;;
loongarch64) MI_SECTION_BITS=29 ;;
ppc64|ppc64le) MI_SECTION_BITS=24 ;;
*) MI_SECTION_BITS= ;;
esac
MI_SECTION_PAGES=$((MI_SECTION_BITS ? (1 << MI_SECTION_BITS) / MI_PAGE_SIZE : 0))
MI_SHARED_WRITTEN=$((2 * MI_PAGE_SIZE / 64))
# The online CPUs and, per node, its online CPUs and its online
# housekeeping CPUs (mi_cpus_init).
MI_CPUS=
declare -A MI_NODE_ONLINE=() MI_NODE_HK=() MI_NODE_HK_CPUS=()
# The unbound workqueues' cpumask, and what it was before mi_limited wq=
# changed it, until it puts it back (mi_cleanup does if the test is
# interrupted in between).
MI_WQ_CPUMASK=/sys/devices/virtual/workqueue/cpumask
MI_WQ_SAVED=
# mi_limited cpuset=, cpu.max= and pids.max=: the cgroup made for it, the
# cgroup the shell came from, and the root and the controller enabled for
# its children, if it was not before.
MI_CGROUP_DIR=
MI_CGROUP_FROM=
MI_CGROUP_ENABLED=

# mi_debugfs: debugfs at /sys/kernel/debug, mounted if it is not; false
# when it cannot be.
mi_debugfs() {
	grep -q ' /sys/kernel/debug ' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
}

# mi_cpulist LIST: the CPUs of a cpulist such as "0-3,8", one a line.
mi_cpulist() {
	local r a b i
	local -a rs
	IFS=, read -r -a rs <<<"$1"
	for r in ${rs[@]+"${rs[@]}"}; do
		[[ "$r" =~ ^([0-9]+)(-([0-9]+))?$ ]] || continue
		a=${BASH_REMATCH[1]}
		b=${BASH_REMATCH[3]:-$a}
		for ((i = a; i <= b; i++)); do echo "$i"; done
	done
}

# mi_nodes: the online nodes, one a line (0 without NUMA).
mi_nodes() {
	local n
	if [ -r /sys/devices/system/node/online ]; then
		mi_cpulist "$(cat /sys/devices/system/node/online)"
	else
		echo 0
	fi
}

# mi_cpus_init: MI_CPUS, the online CPUs; MI_NODE_ONLINE[N], the online
# CPUs of node N, and MI_NODE_HK[N], those of them that are housekeeping
# CPUs, not set apart by isolcpus= (/sys/devices/system/cpu/isolated) or
# nohz_full= (.../nohz_full), which MI_NODE_HK_CPUS[N] lists.  Without
# NUMA, node 0 has every CPU.
mi_cpus_init() {
	local c n k h f l
	local -A online=() isolated=()
	[ -z "$MI_CPUS" ] || return 0
	for c in $(mi_cpulist "$(cat /sys/devices/system/cpu/online 2>/dev/null)"); do
		online[$c]=1
	done
	for f in isolated nohz_full; do
		for c in $(mi_cpulist "$(cat "/sys/devices/system/cpu/$f" 2>/dev/null)"); do
			isolated[$c]=1
		done
	done
	MI_CPUS=${#online[@]}
	[ "$MI_CPUS" -gt 0 ] || MI_CPUS=$(nproc)
	for n in $(mi_nodes); do
		k=0 h=0 l=
		f=/sys/devices/system/node/node$n/cpulist
		[ -r "$f" ] || f=/sys/devices/system/cpu/online
		for c in $(mi_cpulist "$(cat "$f")"); do
			[ -n "${online[$c]:-}" ] || continue
			k=$((k + 1))
			[ -z "${isolated[$c]:-}" ] || continue
			h=$((h + 1))
			l+=" $c"
		done
		MI_NODE_ONLINE[$n]=$k
		MI_NODE_HK[$n]=$h
		MI_NODE_HK_CPUS[$n]=${l# }
	done
}

# mi_stat PID: the fields of /proc/PID/stat after the command name (the
# state first), read with shell builtins; nothing when PID is gone.
mi_stat() {
	local l
	read -r l 2>/dev/null <"/proc/$1/stat" && echo "${l##*) }"
}

# mi_cpu_node NODE: the node whose CPUs run the helpers for memory of NODE:
# NODE when it has an online CPU, else the nearest node that has one
# (/sys/devices/system/node/nodeNODE/distance, the lowest node on a tie),
# as numa_nearest_node() picks it; NODE itself when no distances are known.
mi_cpu_node() {
	local n=$1 best="" bestd="" d i=0
	local -a nodes dists
	mi_cpus_init
	if [ "${MI_NODE_ONLINE[$n]:-0}" -gt 0 ] ||
		[ ! -r "/sys/devices/system/node/node$n/distance" ]; then
		echo "$n"
		return
	fi
	mapfile -t nodes < <(mi_nodes)
	read -r -a dists <"/sys/devices/system/node/node$n/distance"
	for i in "${!nodes[@]}"; do
		d=${dists[$i]:-}
		[ -n "$d" ] || continue
		[ "${MI_NODE_ONLINE[${nodes[$i]}]:-0}" -gt 0 ] || continue
		if [ -z "$bestd" ] || [ "$d" -lt "$bestd" ]; then
			best=${nodes[$i]} bestd=$d
		fi
	done
	echo "${best:-$n}"
}

# mi_ns_node: the node of the namespace's memory (its numa_node), or "-"
# when the namespace has none (no NUMA: the binding CPU's node is used).
mi_ns_node() {
	local n
	n=$(cat "/sys/bus/nd/devices/$MI_NS/numa_node" 2>/dev/null)
	if [[ "$n" =~ ^[0-9]+$ ]]; then echo "$n"; else echo -; fi
}

# mi_cpumask LIST: the CPUs of LIST as the kernel writes a cpumask: hex
# words of 32 CPUs, the highest first, separated by commas.
mi_cpumask() {
	local c w n=0 out=
	local -a words=()
	for c in $(mi_cpulist "$1"); do
		w=$((c / 32))
		words[w]=$((${words[w]:-0} | (1 << (c % 32))))
		[ "$w" -lt "$n" ] || n=$((w + 1))
	done
	for ((w = n - 1; w >= 0; w--)); do
		out+=$(printf '%08x' "${words[w]:-0}")
		[ "$w" -eq 0 ] || out+=,
	done
	echo "$out"
}

# mi_cpumask_list MASK: the CPUs of a cpumask as the kernel writes it
# (mi_cpumask), as a CPU list.
mi_cpumask_list() {
	local i v bit c=0 out=
	local -a words
	IFS=, read -r -a words <<<"$1"
	for ((i = ${#words[@]} - 1; i >= 0; i--)); do
		v=$((16#${words[i]}))
		for ((bit = 0; bit < 32; bit++)); do
			[ $(((v >> bit) & 1)) -eq 0 ] || out+=,$((c + bit))
		done
		c=$((c + 32))
	done
	echo "${out#,}"
}

# mi_cgroup2: where the cgroup v2 hierarchy is mounted; false if nowhere.
mi_cgroup2() {
	awk '$3 == "cgroup2" { print $2; found = 1; exit } END { exit !found }' \
		/proc/mounts 2>/dev/null
}

# mi_cgroup_usable CONTROLLER: where the cgroup v2 hierarchy is mounted,
# if it has CONTROLLER; false otherwise.
mi_cgroup_usable() {
	local root
	root=$(mi_cgroup2) && grep -qw "$1" "$root/cgroup.controllers" 2>/dev/null &&
		echo "$root"
}

mi_cpuset_usable() { mi_cgroup_usable cpuset; }

# mi_cgroup_enter FILE VALUE PID: move PID into a new cgroup and write
# VALUE to its FILE (cpuset.cpus, cpu.max, pids.max), enabling FILE's
# controller for the root's children if it was not; VALUE "current" is
# the cgroup's pids.current once PID is in it.  Prints why not and is
# false when it cannot.  mi_cgroup_leave PID puts everything back.
mi_cgroup_enter() {
	local file=$1 value=$2 pid=$3 ctl=${1%%.*} root
	if ! root=$(mi_cgroup_usable "$ctl"); then
		ktap_print_msg "no cgroup v2 hierarchy with the $ctl controller"
		return 1
	fi
	MI_CGROUP_FROM=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
	if ! grep -qw "$ctl" "$root/cgroup.subtree_control"; then
		if ! echo "+$ctl" 2>/dev/null >"$root/cgroup.subtree_control"; then
			ktap_print_msg "cannot enable the $ctl controller in $root"
			return 1
		fi
		MI_CGROUP_ENABLED="$root $ctl"
	fi
	MI_CGROUP_DIR=$root/memmap_init.$$
	if mkdir "$MI_CGROUP_DIR" && echo "$pid" 2>/dev/null >"$MI_CGROUP_DIR/cgroup.procs"; then
		# read, not $(...): a subshell would be one of the tasks counted.
		[ "$value" != current ] || read -r value <"$MI_CGROUP_DIR/pids.current"
		echo "$value" 2>/dev/null >"$MI_CGROUP_DIR/$file" && return 0
	fi
	ktap_print_msg "cannot make a cgroup with $file $value in $MI_CGROUP_DIR"
	mi_cgroup_leave "$pid"
	return 1
}

mi_cgroup_leave() {
	local root
	[ -n "$MI_CGROUP_DIR" ] || return 0
	root=${MI_CGROUP_DIR%/*}
	[ ! -d "$root$MI_CGROUP_FROM" ] ||
		echo "$1" 2>/dev/null >"$root$MI_CGROUP_FROM/cgroup.procs"
	rmdir "$MI_CGROUP_DIR" 2>/dev/null
	[ -z "$MI_CGROUP_ENABLED" ] ||
		echo "-${MI_CGROUP_ENABLED#* }" 2>/dev/null \
			>"${MI_CGROUP_ENABLED% *}/cgroup.subtree_control"
	MI_CGROUP_DIR=
	MI_CGROUP_FROM=
	MI_CGROUP_ENABLED=
}

# mi_limited LIMIT CMD...: run CMD, a command or a function of this shell,
# with this shell, and so every process CMD starts, held to LIMIT, then
# lift it.  LIMIT is cpu=LIST (allowed only on the CPUs of LIST, as taskset
# would), cpuset=LIST (in a cgroup v2 cpuset of the CPUs of LIST, as an
# administrator would confine a task), cpu.max=QUOTA (in a cgroup with
# that cpu.max, "100000 100000" for one CPU), pids.max=N (in a cgroup
# with that pids.max, "current" for the tasks it holds once the shell is
# in it: no task more), nice=N (nice value N, as nice would), fifo=N
# (SCHED_FIFO at priority N, as chrt -f would; from SCHED_OTHER), wq=LIST (the
# shell on the CPUs of LIST, and the unbound workqueues' workers too,
# through MI_WQ_CPUMASK: for binds that do not run in the task that asks
# for them, as pmem namespaces bind in libnvdimm's worker) or "" (none).
# Returns CMD's status; 1 when the limit cannot be set.
mi_limited() {
	local lim=$1 pid=$BASHPID rc=0 cpus nice mask
	shift
	cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status")
	nice=$(mi_stat "$pid" | cut -d' ' -f17)
	case "$lim" in
	'') ;;
	cpu=*) taskset -pc "${lim#cpu=}" "$pid" >/dev/null || return 1 ;;
	cpuset=*) mi_cgroup_enter cpuset.cpus "${lim#*=}" "$pid" || return 1 ;;
	cpu.max=*|pids.max=*) mi_cgroup_enter "${lim%%=*}" "${lim#*=}" "$pid" || return 1 ;;
	nice=*) renice "${lim#nice=}" -p "$pid" >/dev/null || return 1 ;;
	fifo=*)
		[[ "$(chrt -p "$pid" 2>/dev/null)" == *SCHED_OTHER* ]] || return 1
		chrt -f -p "${lim#fifo=}" "$pid" >/dev/null || return 1 ;;
	wq=*)
		if [ -n "$MI_WQ_SAVED" ]; then
			ktap_print_msg "mi_limited wq= inside mi_limited wq=: refused"
			return 1
		fi
		mask=$(mi_cpumask "${lim#wq=}")
		# Save what the administrator asked for, not the effective mask
		# (less the isolated CPUs), which writing back would narrow.
		if [ -z "$mask" ] ||
			! MI_WQ_SAVED=$(cat "${MI_WQ_CPUMASK}_requested" 2>/dev/null ||
				cat "$MI_WQ_CPUMASK" 2>/dev/null) || [ -z "$MI_WQ_SAVED" ]; then
			MI_WQ_SAVED=
			ktap_print_msg "cannot limit the unbound workqueues: no CPUs" \
				"'${lim#wq=}' or no $MI_WQ_CPUMASK"
			return 1
		fi
		taskset -pc "${lim#wq=}" "$pid" >/dev/null || rc=1
		if [ "$rc" -eq 0 ] && ! echo "$mask" 2>/dev/null >"$MI_WQ_CPUMASK"; then
			ktap_print_msg "cannot limit the unbound workqueues to CPUs" \
				"${lim#wq=} (mask $mask)"
			rc=1
		fi ;;
	*) return 1 ;;
	esac
	[ "$rc" -ne 0 ] || "$@" || rc=$?
	case "$lim" in
	cpu=*) taskset -pc "$cpus" "$pid" >/dev/null ;;
	cpuset=*|cpu.max=*|pids.max=*) mi_cgroup_leave "$pid" ;;
	nice=*) renice "$nice" -p "$pid" >/dev/null ;;
	fifo=*) chrt -o -p 0 "$pid" >/dev/null ;;
	wq=*)
		taskset -pc "$cpus" "$pid" >/dev/null
		mi_wq_restore || rc=1 ;;
	esac
	return "$rc"
}

# mi_wq_restore: put back the unbound workqueues' cpumask mi_limited wq=
# changed.  False, keeping MI_WQ_SAVED for mi_cleanup to try again, when
# the write fails.
mi_wq_restore() {
	[ -n "$MI_WQ_SAVED" ] || return 0
	if ! echo "$MI_WQ_SAVED" 2>/dev/null >"$MI_WQ_CPUMASK"; then
		ktap_print_msg "cannot put back $MI_WQ_CPUMASK: $MI_WQ_SAVED"
		return 1
	fi
	MI_WQ_SAVED=
}

# mi_allowed_cpus LIMIT: the online CPUs a task under LIMIT (mi_limited)
# started from this shell may run on, one a line.
mi_allowed_cpus() {
	local lim=$1 list c
	local -A online=()
	list=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$BASHPID/status")
	case "$lim" in
	cpu=*|wq=*|cpuset=*) list=${lim#*=} ;;
	esac
	for c in $(mi_cpulist "$(cat /sys/devices/system/cpu/online 2>/dev/null)"); do
		online[$c]=1
	done
	for c in $(mi_cpulist "$list"); do
		[ -z "${online[$c]:-}" ] || echo "$c"
	done
}

# mi_helper_cpus_allowed NODE LIMIT: the CPUs on which the memmap init of
# memory of NODE (a node with CPUs: mi_cpu_node) may run helpers for a
# task under LIMIT: the node's housekeeping CPUs that the task may run on,
# one a line.
mi_helper_cpus_allowed() {
	local c
	local -A ok=()
	mi_cpus_init
	for c in $(mi_allowed_cpus "$2"); do ok[$c]=1; done
	for c in ${MI_NODE_HK_CPUS[$1]:-}; do
		[ -z "${ok[$c]:-}" ] || echo "$c"
	done
}

# mi_compound_pages OPTIONS...: the pages of one compound page of a
# namespace that ndctl create-namespace OPTIONS make: device-dax maps its
# align (2 MiB unless given), fsdax single pages.
mi_compound_pages() {
	local a
	case " $* " in
	*" --mode=devdax "*) ;;
	*) echo 1; return ;;
	esac
	a=$(sed -n 's/.*--align=\([0-9]*[KMG]\).*/\1/p' <<<"$*")
	case "$a" in
	*K) a=$((${a%K} * 1024)) ;;
	*M) a=$((${a%M} * 1024 * 1024)) ;;
	*G) a=$((${a%G} * 1024 * 1024 * 1024)) ;;
	*) a=$((2 * 1024 * 1024)) ;;
	esac
	[ "$a" -ge "$MI_PAGE_SIZE" ] || a=$MI_PAGE_SIZE
	echo $((a / MI_PAGE_SIZE))
}

# mi_compound_written COMPOUND ALTMAP: the struct pages memmap init writes
# for each compound page of COMPOUND pages, with the memmap in an altmap
# (ALTMAP 1) or not: all of them, or MI_SHARED_WRITTEN where the tails
# share vmemmap pages.
mi_compound_written() {
	if [ "$2" = 0 ] && [ "$1" -gt "$MI_SHARED_WRITTEN" ]; then
		echo "$MI_SHARED_WRITTEN"
	else
		echo "$1"
	fi
}

# mi_threads_known: true when the section size of this architecture is
# declared above, so that the kernel's chunks can be worked out.
mi_threads_known() {
	[ "$MI_SECTION_PAGES" -gt 0 ]
}

mi_threads_known_why() {
	echo "the memory section size of $(uname -m) is not declared in" \
		"memmap_lib_threads.sh (its asm/sparsemem.h SECTION_SIZE_BITS)"
}

# mi_threads_chunk COMPOUND ALTMAP: "MIN_CHUNK ALIGN", the kernel's
# chunking for compound pages of COMPOUND pages (ALTMAP as for
# mi_compound_written): chunk boundaries at multiples of ALIGN, the larger
# of COMPOUND and a section, and chunks of at least MIN_CHUNK: the compound
# pages that write two sections' worth of struct pages, rounded up to ALIGN.
mi_threads_chunk() {
	local a=$MI_SECTION_PAGES w min
	[ "$a" -ge "$1" ] || a=$1
	w=$(mi_compound_written "$1" "$2")
	# Whole compound pages: round the count up before scaling it.
	min=$(((2 * MI_SECTION_PAGES + w - 1) / w))
	min=$((min * $1))
	echo "$(((min + a - 1) / a * a)) $a"
}

# mi_quota_cpus LIMIT: the whole CPUs the cgroup mi_limited makes for LIMIT
# cpu.max=QUOTA PERIOD allows, at least 1, as the kernel counts a user
# task's threads (the cgroup is a child of the hierarchy's root, which
# sets no limit); nothing for any other LIMIT.  The tests expect to run
# from a cgroup without cpu.max.
mi_quota_cpus() {
	local quota period n
	[[ "$1" == cpu.max=* ]] || return 0
	read -r quota period <<<"${1#cpu.max=}"
	[[ "$quota" =~ ^[0-9]+$ ]] || return 0
	n=$((quota / ${period:-100000}))
	echo $((n > 1 ? n : 1))
}

# mi_threads_expected NR_PAGES START_PFN COMPOUND ALTMAP NODE LIMIT: "LO HI
# NID WHY": the threads a memmap init of that range (compound pages of
# COMPOUND pages, its memmap in an altmap if ALTMAP is 1, memory of NODE,
# "-" for unknown) may report when the
# binding task runs under LIMIT (mi_limited), the node it reports (NID:
# NODE, "-" when it cannot be known here), and why.  No pages: no
# thread.  Otherwise one thread runs a range that does not start at a
# compound page or a range of less than two chunks (mi_threads_chunk);
# else at most one thread per chunk and per online housekeeping CPU of
# mi_cpu_node NODE (the memory's node or the nearest with CPUs) that the
# binding task may run on (mi_helper_cpus_allowed), and no more than the
# CPUs' worth of time its cpu.max allows (mi_quota_cpus), one when there
# is none or when the task is real-time (LIMIT fifo=, which the kernel
# gives no helper).  LO is 1 whenever HI allows more: a helper that finds
# every chunk taken does not count, and when one starts is the
# scheduler's choice, so no test insists on two.
mi_threads_expected() {
	local nr=$1 start=$2 compound=$3 altmap=$4 node=$5 lim=$6
	local chunk n hk allowed cn hi nid=$node quota
	mi_cpus_init
	cn=-
	[ "$node" = - ] || cn=$(mi_cpu_node "$node")
	allowed=$(mi_allowed_cpus "$lim" | grep -c .)
	# Without the section size, the chunks are not known: one thread per
	# CPU at most.
	n=$allowed
	if mi_threads_known; then
		read -r chunk _ < <(mi_threads_chunk "$compound" "$altmap")
		n=$((nr / chunk))
	fi
	if [ "$nr" -eq 0 ]; then
		echo "0 0 $node a call without pages runs no thread"
		return
	fi
	# The helpers' CPUs: the node's housekeeping CPUs the task may use.
	if [ "$cn" = - ]; then
		# Some node with CPUs: allow the most of any.
		hk=0
		for k in "${!MI_NODE_HK[@]}"; do
			k=$(mi_helper_cpus_allowed "$k" "$lim" | grep -c .)
			[ "$k" -le "$hk" ] || hk=$k
		done
	else
		hk=$(mi_helper_cpus_allowed "$cn" "$lim" | grep -c .)
	fi
	hi=$n
	[ "$hk" -ge "$hi" ] || hi=$hk
	quota=$(mi_quota_cpus "$lim")
	[ -z "$quota" ] || [ "$quota" -ge "$hi" ] || hi=$quota
	if [ $((start % compound)) -ne 0 ]; then
		echo "1 1 $nid the range does not start at a compound page of $compound pages"
	elif [ "${lim%%=*}" = fifo ]; then
		echo "1 1 $nid a real-time task's bind runs on its own thread"
	elif ! mi_threads_known; then
		echo "1 $hi $nid $hk housekeeping CPU(s) of node $cn that the binding" \
			"task may use; $(mi_threads_known_why)"
	elif [ "$n" -lt 2 ]; then
		echo "1 1 $nid $nr pages are less than two chunks of $chunk"
	elif [ -n "$quota" ] && [ "$quota" -lt 2 ]; then
		echo "1 1 $nid the binding task's cgroup allows less than two CPUs" \
			"(cpu.max ${lim#*=})"
	elif [ "$hi" -lt 2 ]; then
		echo "1 1 $nid $hk housekeeping CPU(s) of node $cn that the binding" \
			"task may use ($allowed allowed to it)"
	else
		echo "1 $hi $nid room for $n chunks of at least $chunk pages, $hk housekeeping" \
			"CPU(s) of node $cn that the binding task may use ($allowed allowed to it)"
	fi
}

# mi_threads_check EVENTS COMPOUND NODE LIMIT: for each event of EVENTS
# (one a line, its altmap field saying where its memmap is) whose threads
# or nid mi_threads_expected does not allow,
# print what is wrong, " ...;" each, all on one line; nothing if all are
# allowed.
mi_threads_check() {
	local e t id nr start altmap lo hi nid why
	while IFS= read -r e; do
		[ -n "$e" ] || continue
		read -r t altmap id nr start < <(mi_fields "$e" threads altmap nid \
			nr_pages start_pfn)
		if ! [[ "$nr" =~ ^[0-9]+$ ]] || ! [[ "$start" =~ ^0x[0-9a-f]+$ ]]; then
			printf " no nr_pages or start_pfn in '%s';" "$e"
			continue
		fi
		read -r lo hi nid why < <(mi_threads_expected "$nr" $((start)) "$2" \
			"$altmap" "$3" "$4")
		if ! [[ "$t" =~ ^[0-9]+$ ]] || [ "$t" -lt "$lo" ] || [ "$t" -gt "$hi" ]; then
			printf " threads=%s for %s pages from %s, want %s to %s (%s);" \
				"$t" "$nr" "$start" "$lo" "$hi" "$why"
		fi
		if [ "$nid" != - ] && [ "$id" != "$nid" ]; then
			printf " nid=%s for %s pages from %s, want %s (memory of node %s);" \
				"$id" "$nr" "$start" "$nid" "$3"
		fi
	done <<<"$1"
}

# mi_threads_chunks NR_PAGES START_PFN COMPOUND ALTMAP THREADS: "CHUNKS SIZE
# FIRST": how the kernel cut a range that THREADS (2 or more) threads
# initialized: about four chunks a thread and at least MIN_CHUNK pages
# each, rounded up to ALIGN (mi_threads_chunk), ending at multiples of
# SIZE, so that the first has FIRST pages, less than SIZE when the range
# does not start at such a multiple.
mi_threads_chunks() {
	local nr=$1 start=$(($2)) t=$5 min align size first
	read -r min align < <(mi_threads_chunk "$3" "$4")
	size=$((nr / (t * 4)))
	[ "$size" -ge "$min" ] || size=$min
	size=$(((size + align - 1) / align * align))
	first=$(((start / size + 1) * size - start))
	[ "$first" -le "$nr" ] || first=$nr
	echo "$(((start + nr - 1) / size - start / size + 1)) $size $first"
}
