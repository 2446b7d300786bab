# shellcheck shell=bash
# Common helpers for the vm/ scripts: cache location, stage timing, logs.
# Sourced, not run.

LLPOLL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LLPOLL_CACHE=${LLPOLL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llpoll}
LLPOLL_LOGS=$LLPOLL_CACHE/logs
export LLPOLL_TOP LLPOLL_CACHE LLPOLL_LOGS
# shellcheck source=module/linux-source.sh
. "$LLPOLL_TOP/module/linux-source.sh"
# (vm/paths only answers questions: it creates nothing)
[ -n "${LLPOLL_PATHS_ONLY:-}" ] || mkdir -p "$LLPOLL_CACHE" "$LLPOLL_LOGS"

# The kernel variants, one per vm/config/VARIANT.config on top of the
# common llpoll.config: test (debug options: make check, make soak), bench
# (none: make bench), noll (CONFIG_INET_LL_RX_POLL off: make check-noll).
# The cache keeps each variant's build in kernel_dir and its guest image in
# image_file; every script asks these (make through vm/paths). kernel_tree
# is Debian's linux-source-6.1 unpacked with the core hook applied, which
# every variant builds from (vm/kernel owns it; make hands it to
# module/prepare-src as LLPOLL_KSRC).
LLPOLL_VARIANTS=""
for llpoll_cfg in "$LLPOLL_TOP"/vm/config/*.config; do
	llpoll_cfg=${llpoll_cfg##*/}
	[ "$llpoll_cfg" = llpoll.config ] ||
		LLPOLL_VARIANTS="$LLPOLL_VARIANTS${LLPOLL_VARIANTS:+ }${llpoll_cfg%.config}"
done
unset llpoll_cfg
is_variant() { case " $LLPOLL_VARIANTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
kernel_dir() { echo "$LLPOLL_CACHE/kernel-$1"; }
image_file() { echo "$LLPOLL_CACHE/image-$1.img"; }
kernel_tree() { echo "$LLPOLL_CACHE/$LINUX_SOURCE"; }
# Debian's own configuration of its amd64 kernel (package linux-config-6.1):
# vm/kernel takes the options of vm/config/debian.options from it
debian_config() { echo /usr/src/linux-config-6.1/config.amd64_none_amd64.xz; }
# the compiler cache a guest's builds (DKMS) use: vm/run shares it with
# the guest, vm/image fills it when it builds the package into the image
guest_ccache_dir() { echo "$LLPOLL_CACHE/guest-ccache"; }
# the host's compiler cache for the kernel builds
kernel_ccache_dir() { echo "$LLPOLL_CACHE/ccache"; }
# tests/hook-series' copy of the tree and its objects, a patch at a time
hook_series_dir() { echo "$LLPOLL_CACHE/hook-series"; }
# use_kernel_ccache: the compiles of kernel code that follow go through
# the kernels' compiler cache, in depend mode (no preprocessor run to key
# a compile: the compiler's own dependency list, which kbuild asks for,
# names the headers); KERNEL_CC is what to give make as CC (plain gcc
# where ccache is missing)
# shellcheck disable=SC2034 # read by the scripts that source this
use_kernel_ccache() {
	CCACHE_DIR=$(kernel_ccache_dir)
	export CCACHE_DIR CCACHE_DEPEND=1
	KERNEL_CC=gcc
	! command -v ccache >/dev/null || KERNEL_CC="ccache gcc"
}
# tests/sparse-compare's copies of the drivers, at one path from run to
# run so that their compiles hit the kernels' compiler cache
sparse_compare_dir() { echo "$LLPOLL_CACHE/sparse-compare"; }
# one kernel build at a time (vm/kernel; vm/distclean waits for none)
kernel_lock() { echo "$LLPOLL_CACHE/kernel.lock"; }
# the debootstrap tree, kept as a tar named by its package list's KEY;
# rootfs_dir NAME: a guest tree being assembled (a variant, or tmp)
rootfs_base() { echo "$LLPOLL_CACHE/rootfs-$1.tar"; }
rootfs_dir() { echo "$LLPOLL_CACHE/rootfs-$1"; }
# vm/accel's answer for this boot of the host
accel_file() { echo "$LLPOLL_CACHE/accel-$(cat /proc/sys/kernel/random/boot_id)"; }
# run directories: runs_dir holds them; new_run_dir KIND makes and prints
# a new one (check, soak, noll); vm/run makes its own there
runs_dir() { echo "$LLPOLL_CACHE/runs"; }
new_run_dir() {
	local d
	d=$(runs_dir)/$1-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$d"
	echo "$d"
}
# every name above, as the patterns of the cache's entries (vm/distclean
# removes a cache that holds nothing else)
# shellcheck disable=SC2034 # read by the scripts that source this
LLPOLL_CACHE_ENTRIES="accel-* ccache guest-ccache hook-series image-* kernel-* kernel.lock linux-source-* logs rootfs-* runs sparse-compare"
# The DKMS package: dkms_files lists its files (the Makefile's
# dkms-files, relative to the top); package_copy DIR copies them under DIR
# as dkms-install does
dkms_files() { make -s --no-print-directory -C "$LLPOLL_TOP" dkms-files; }
# the forked drivers (dkms.conf's LLPOLL_DRIVERS)
drivers() { make -s --no-print-directory -C "$LLPOLL_TOP" drivers; }
package_copy() {
	# shellcheck disable=SC2046 # one word per file
	(cd "$LLPOLL_TOP" && cp --parents $(dkms_files) "$1/")
}

die() {
	echo "error: $*" >&2
	exit 1
}

# bench_guest_ready: for bench/run and bench/trace, the bench kernel is
# built and its image is up to date with it and with the DKMS package
# (vm/image rebuilds a stale image, and is a no-op otherwise), so that a
# changed fork is never measured with the drivers of an older one
bench_guest_ready() {
	[ -f "$(kernel_dir bench)/bzImage" ] ||
		die "no bench kernel: run 'make bench' (or vm/kernel bench)"
	"$LLPOLL_TOP/vm/image" bench >&2 || die "vm/image bench failed"
}

# The core hook: Debian's 6.1 patched by core-hook/NNNN-*.patch, a series
# applied in the order of its numbers. hook_patches: their paths, in order
hook_patches() {
	local p
	for p in "$LLPOLL_TOP"/core-hook/[0-9][0-9][0-9][0-9]-*.patch; do
		[ ! -f "$p" ] || echo "$p"
	done
}
# patch_files PATCH...: the files they touch, one per line, sorted
patch_files() { sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$@" | sort -u; }
# patch_body PATCH...: their diffs: what changes a tree, not what they say
patch_body() {
	local p
	for p in "$@"; do sed -n '/^diff --git /,$p' "$p"; done
}
# pristine_files DIR FILE...: Debian's own copies of those FILEs that its
# tarball has, in DIR/$LINUX_SOURCE (made, even if it has none of them)
pristine_files() {
	local dir=$1 f
	shift
	mkdir -p "$dir/$LINUX_SOURCE"
	[ -f "$LINUX_SOURCE_TARBALL" ] || die "$LINUX_SOURCE_TARBALL missing: run 'make deps'"
	# a file a patch creates is not in the tarball: tar says so, and the
	# patch that creates it would fail if it were
	# shellcheck disable=SC2046 # one member per file
	tar -C "$dir" -xJf "$LINUX_SOURCE_TARBALL" $(for f in "$@"; do echo "$LINUX_SOURCE/$f"; done) 2>/dev/null || true
}

# is_whole VALUE: VALUE is a whole number (digits only), for the scripts'
# numeric flags
is_whole() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
}

# The stage table of a run: make check and make bench point LLPOLL_STAGES
# at a new file (vm/stages new); each timed step appends a line to it
# (stage_record) and the run ends by printing it (vm/stages table).
# stage_record LEVEL NAME SECONDS STATE [DETAIL]: LEVEL 1 for a step of
# the run, 2 for a part of the step above it (a guest test file, the
# in-guest DKMS build); STATE says whether the step did its work (cold,
# built) or found it done (cached). A step found done that the run
# already recorded (two callers making sure of one image) adds no row.
stage_record() {
	[ -n "${LLPOLL_STAGES:-}" ] || return 0
	if [ "$4" = cached ] && [ -f "$LLPOLL_STAGES" ] &&
		awk -F '\t' -v l="$1" -v n="$2" '$1 == l && $2 == n { f = 1 } END { exit !f }' "$LLPOLL_STAGES"; then
		return 0
	fi
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" >>"$LLPOLL_STAGES"
}
# ccache_hits: "HITS MISSES" of the compiler cache in CCACHE_DIR so far
ccache_hits() {
	{ ccache --print-stats 2>/dev/null || true; } | awk '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 }
		$1 == "cache_miss" { m = $2 } END { print h + 0, m + 0 }'
}
stages_new() { mktemp "$LLPOLL_LOGS/stages-$(date +%Y%m%d-%H%M%S)-XXXX.tsv"; }

# stage NAME LOG CMD...: run CMD with all output in LOG, print the stage
# name and elapsed time; on failure show the log tail and its path. While
# CMD runs, a line every STAGE_TICK seconds (default 30) with the time so
# far and, when STAGE_PROGRESS names a function, what it says of LOG.
stage() {
	local name=$1 log=$2 t0 rc=0 ticker
	shift 2
	t0=$(date +%s)
	echo "==> $name (log: $log)"
	stage_ticker "$name" "$log" "$t0" &
	ticker=$!
	# a subshell: a die in CMD ends the stage, not the script behind it
	("$@") >"$log" 2>&1 || rc=$?
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" >&2
		echo "error: stage '$name' failed after $(($(date +%s) - t0)) s; full log: $log" >&2
		exit "$rc"
	fi
	echo "<== $name done in $(($(date +%s) - t0)) s"
}
stage_ticker() { # NAME LOG T0
	while sleep "${STAGE_TICK:-30}"; do
		echo "... $1: $(($(date +%s) - $3)) s${STAGE_PROGRESS:+, $("$STAGE_PROGRESS" "$2")}"
	done
}

# in_root ROOT CMD...: run CMD chrooted into the guest tree ROOT with a
# clean environment. Nothing of the host's make or shell (LLPOLL_*,
# MAKEFLAGS, paths that exist only on the host) may steer the guest's
# tools; they get what the guest's init gives its commands (GUEST_PATH is
# vm/guest/init's PATH).
GUEST_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
in_root() {
	local root=$1
	shift
	env -i PATH="$GUEST_PATH" \
		HOME=/root TERM=dumb LANG=C.UTF-8 chroot "$root" "$@"
}

# The suite of bookworm as this machine's apt sources name it: the URI of
# the entry whose Suites list "bookworm" (deb822 or one-line format).
bookworm_mirror() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		uri=$(awk '
			/^[[:space:]]*$/ { if (ok && u != "") { print u; exit } ok = 0; u = ""; next }
			/^URIs:/ { u = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") ok = 1 }
			END { if (ok && u != "") print u }' "$f" | head -n 1)
		[ -n "$uri" ] && { echo "$uri"; return 0; }
	done
	uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }
		     $1 == "deb" && $2 ~ /^\[/ && $4 == "bookworm" { print $3; exit }')
	[ -n "$uri" ] || return 1
	echo "$uri"
}
