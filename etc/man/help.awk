# help.awk - fbripple(8): the hand-written page etc/man/fbripple.8.in with the options and the
# environment taken from `fbripple --help`, the usage text in src/main.c, so they cannot drift.
# Usage: fbripple --help | awk -v version=V -v date=D -f help.awk - etc/man/fbripple.8.in
#
# --help is: "usage: ...", a line of summary, a blank line, the options ("  -c, --config FILE"
# then two or more spaces and the meaning; deeper-indented lines go on with the meaning), a
# blank line, then paragraphs about the environment.

function roff(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	sub(/^[.']/, "\\\\&&", s)
	return s
}

# "-c, --config FILE" in bold and italics: options bold, their arguments italic.
function tag(s,   n, i, w, out, comma) {
	n = split(s, words, / +/)
	out = ""
	for (i = 1; i <= n; i++) {
		w = words[i]
		comma = sub(/,$/, "", w)
		out = out (i > 1 ? " " : "") (w ~ /^-/ ? "\\fB" : "\\fI") roff(w) "\\fR" \
		      (comma ? "," : "")
	}
	return out
}

# --help, the first file
FNR == NR && FNR == 1 {
	if ($0 !~ /^usage: fbripple/) {
		print "help.awk: the first line of --help is not \"usage: fbripple ...\"" > "/dev/stderr"
		bad = 1
		exit 1
	}
	next
}
FNR == NR && part == 0 && /^$/ { part = 1; next }
FNR == NR && part == 0 { summary = summary $0 "\n"; next }
FNR == NR && part == 1 && /^$/ { if (options != "") part = 2; next }
FNR == NR && part == 1 && /^  +-/ {
	s = $0
	sub(/^ +/, "", s)
	t = s
	sub(/  .*/, "", t)
	s = substr(s, length(t) + 1)
	sub(/^ +/, "", s)
	options = options ".TP\n" tag(t) "\n" roff(s) "\n"
	next
}
FNR == NR && part == 1 && /^      +[^ ]/ && options != "" {
	s = $0
	sub(/^ +/, "", s)
	options = options roff(s) "\n"
	next
}
FNR == NR && part == 1 {
	printf "help.awk: --help line %d is not an option: %s\n", FNR, $0 > "/dev/stderr"
	bad = 1
	exit 1
}
FNR == NR && part == 2 && /^$/ { environment = environment ".PP\n"; next }
FNR == NR && part == 2 { environment = environment roff($0) "\n"; next }
FNR == NR { next }

# the page
FNR == 1 {
	if (options == "" || summary == "") {
		print "help.awk: no options or no summary in --help" > "/dev/stderr"
		bad = 1
		exit 1
	}
	print ".\\\" Generated from etc/man/fbripple.8.in and fbripple --help by etc/man/help.awk."
}
/^@OPTIONS@$/ { printf "%s", options; next }
/^@ENVIRONMENT@$/ { printf "%s", environment; next }
/^@SUMMARY@$/ { printf "%s", roff(summary); next }
{
	gsub(/@VERSION@/, version)
	gsub(/@DATE@/, date)
	print
}
END { if (bad) exit 1 }
