# shellcheck shell=bash
# Result lines shared by tests/run and tests/soak: every result is a line
# "ok - ...", "not ok - ..." or "skip - ..."; the last line of a run is
# "N passed, N failed, N skipped".

pass=0 fail=0 skipped=0
# tally: print and count the result lines read from stdin
tally() {
	local line
	while IFS= read -r line; do
		echo "$line"
		case $line in
		"ok - "*) pass=$((pass + 1)) ;;
		"not ok - "*) fail=$((fail + 1)) ;;
		"skip - "*) skipped=$((skipped + 1)) ;;
		esac
	done
}
result() { # NAME STATUS
	if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "not ok - $1"; fi
}
# the guest tools, static, into RUNDIR (the guest's /out)
build_guest_tools() { # RUNDIR
	local t
	for t in llpoll-probe llpoll-traffic llpoll-xdp; do
		gcc -O2 -Wall -Wextra -Werror -static -o "$1/$t" "$LLPOLL_TOP/tests/guest/$t.c"
	done
}
# guest_label: the result and comment lines of guest output, labelled
guest_label() {
	grep -E '^(ok|not ok|skip) - |^# ' | sed -E 's/^(not ok|ok|skip) - /&guest: /'
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
summary() {
	echo "$pass passed, $fail failed, $skipped skipped"
	[ "$fail" -eq 0 ]
}
