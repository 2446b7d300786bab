# shellcheck shell=bash
# Result lines shared by tests/run, tests/soak and tests/noll. Checks print
# "ok - ...", "not ok - ..." or "skip - ..."; tally numbers them as TAP 13
# ("ok N - ...", "not ok N - ...", "ok N - ... # SKIP") and counts them;
# summary repeats the failures and closes the stream with its plan ("1..N")
# and the run's last line, "N passed, N failed, N skipped". tap_start opens
# it.

pass=0 fail=0 skipped=0 failures=()
# wait_until and the sockperf reader: the guest's helpers, on the host too
# shellcheck source=vm/guest/lib.sh
. "$LLPOLL_TOP/vm/guest/lib.sh"
tap_start() { echo "TAP version 13"; }
# tally: number, print and count the result lines read from stdin
tally() {
	local line n
	while IFS= read -r line; do
		n=$((pass + fail + skipped + 1))
		case $line in
		"ok - "*) pass=$((pass + 1)); echo "ok $n - ${line#ok - }" ;;
		"not ok - "*)
			fail=$((fail + 1))
			failures+=("not ok $n - ${line#not ok - }")
			echo "${failures[-1]}"
			;;
		"skip - "*) skipped=$((skipped + 1)); echo "ok $n - ${line#skip - } # SKIP" ;;
		*) echo "$line" ;;
		esac
	done
}
result() { # NAME STATUS
	if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "not ok - $1"; fi
}
# section NAME WANT RC LOG: the result lines a tool wrote to LOG, then one
# of its own: the tool exited 0 (RC) with WANT results. A tool that
# crashed part-way, or failed before its first result, fails here instead
# of leaving fewer results behind.
section() {
	local n
	grep -E '^(ok|not ok|skip) - ' "$4" || true
	n=$(grep -cE '^(ok|not ok|skip) - ' "$4" || true)
	result "$1: exit $3, $n of $2 results" "$([ "$3" = 0 ] && [ "$n" = "$2" ]; echo $?)"
}
# tap_parse FILE: what a TAP consumer (Perl's TAP::Parser, as prove uses)
# reads from FILE: "tests=N failed=N skipped=N plan=N errors=N"
tap_parse() {
	perl -MTAP::Parser -e '
		open(my $f, "<", $ARGV[0]) or die "$ARGV[0]: $!\n";
		my $p = TAP::Parser->new({ tap => do { local $/; <$f> } });
		1 while $p->next;
		printf "tests=%d failed=%d skipped=%d plan=%s errors=%d\n", $p->tests_run,
			scalar $p->failed, scalar $p->skipped, $p->tests_planned // "none",
			scalar $p->parse_errors;' "$1"
}
# guest_tap_check RUNDIR: a result: the guest's output.log is TAP that a
# parser reads without error, with a plan that matches its results
guest_tap_check() {
	local parsed tests plan
	parsed=$(tap_parse "$1/output.log" 2>&1 || true)
	tests=$(echo "$parsed" | sed -n 's/^tests=\([0-9]*\) .*/\1/p')
	plan=$(echo "$parsed" | sed -n 's/.* plan=\([0-9]*\) errors=0$/\1/p')
	result "guest: output.log is TAP 13 that a TAP parser reads ($parsed)" \
		"$([ -n "$plan" ] && [ "${tests:-0}" -gt 0 ] && [ "$tests" = "$plan" ]; echo $?)"
}
# the guest tools, static, into RUNDIR (the guest's /out)
build_guest_tools() { # RUNDIR
	local t so
	# SO_LL_ADAPTIVE, which the C library does not know: its number in the
	# generic socket ABI, as the core hook defines it
	so=$(sed -n 's/^+#define SO_LL_ADAPTIVE[[:space:]]\{1,\}\([0-9]\{1,\}\)$/\1/p' \
		"$LLPOLL_TOP"/core-hook/[0-9][0-9][0-9][0-9]-*.patch | head -n 1)
	for t in llpoll-probe llpoll-traffic llpoll-xdp; do
		gcc -O2 -Wall -Wextra -Werror -static -DSO_LL_ADAPTIVE="$so" \
			-o "$1/$t" "$LLPOLL_TOP/tests/guest/$t.c"
	done
}
# guest_label: the result and comment lines of the guest's TAP, labelled
# and back in the unnumbered form that tally numbers
guest_label() {
	grep -E '^(ok|not ok) [0-9]+ - |^# ' | sed -E \
		-e 's/^ok [0-9]+ - (.*) # SKIP$/skip - guest: \1/' \
		-e 's/^(not ok|ok) [0-9]+ - /\1 - guest: /'
}
# guest_results RUNDIR: the guest's result and comment lines, labelled
guest_results() { guest_label <"$1/guest.log"; }
# guest_follow RUNDIR PID: the same while the guest runs, line by line
# as the guest writes RUNDIR/output.log (shared live), until vm/run (PID)
# has ended and the last line is read
guest_follow() {
	local shown=0 total alive
	while :; do
		alive=0
		kill -0 "$2" 2>/dev/null && alive=1
		if [ -f "$1/output.log" ]; then
			# complete lines only: wc -l counts newlines
			total=$(wc -l <"$1/output.log")
			if [ "$total" -gt "$shown" ]; then
				sed -n "$((shown + 1)),${total}p" "$1/output.log" | guest_label || true
				shown=$total
			fi
		fi
		[ "$alive" = 1 ] || break
		sleep 2
	done
}
# summary [LOGDIR]: the failures again, where the logs are, the plan and
# the counts, so that the end of a long run fits one screen
summary() {
	local f
	if [ "$fail" -gt 0 ]; then
		echo "# failed:"
		for f in "${failures[@]}"; do echo "#   $f"; done
	fi
	[ -z "${1:-}" ] || echo "# logs: $1"
	echo "1..$((pass + fail + skipped))"
	echo "$pass passed, $fail failed, $skipped skipped"
	[ "$fail" -eq 0 ]
}
