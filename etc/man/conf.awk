# conf.awk - fbripple.conf(5) made from etc/fbripple.conf itself, the file that documents every
# key above its default (tests/test_config holds the file to the config table), so the manual
# page cannot drift from it. Usage: awk -v version=V -v date=D -f conf.awk etc/fbripple.conf
#
# The file's opening comment is the description; each "group = {" a subsection; each key its
# default as the file sets it, then the comment lines above it. Comment lines indented past one
# space (lists, commands) keep their layout; "#" alone starts a new paragraph.

# Text for roff: backslashes and hyphen-minus escaped, no line taken for a request.
function roff(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	sub(/^[.']/, "\\\\&&", s)
	return s
}

# One comment line into the pending block: fill text, an indented line, or a paragraph break.
function comment(s) {
	sub(/^[ \t]*#/, "", s)
	if (s ~ /^[ \t]*$/) {
		para()
		return
	}
	if (s ~ /^(  |\t)/) {
		indented[++nindented] = s
		return
	}
	endindented()
	sub(/^ /, "", s)
	block = block roff(s) "\n"
}

# Indented lines: in the opening comment commands, kept as they are; under a key a list, each
# line at the least indentation an item ("word  text" or "\"word\": text"), deeper ones its
# continuation.
function endindented(   i, least, n, s, tag) {
	if (!nindented)
		return
	if (!started) {
		block = block ".RS 4\n.nf\n"
		for (i = 1; i <= nindented; i++) {
			s = indented[i]
			sub(/^ +/, "", s)
			block = block roff(s) "\n"
		}
		block = block ".fi\n.RE\n"
	} else {
		least = 1000
		for (i = 1; i <= nindented; i++) {
			match(indented[i], /^ */)
			if (RLENGTH < least)
				least = RLENGTH
		}
		block = block ".RS\n"
		for (i = 1; i <= nindented; i++) {
			s = indented[i]
			match(s, /^ */)
			n = RLENGTH
			sub(/^ +/, "", s)
			if (n == least) {
				match(s, /^("[^"]*":|[^ ]+) */)
				tag = substr(s, 1, RLENGTH)
				sub(/ +$/, "", tag)
				s = substr(s, RLENGTH + 1)
				block = block ".TP 12\n" roff(tag) "\n"
			}
			block = block roff(s) "\n"
		}
		block = block ".RE\n.IP\n"
	}
	nindented = 0
}

function para() {
	endindented()
	if (block != "" && block !~ /\n\.(PP|IP)\n$/)
		block = block (started ? ".IP\n" : ".PP\n")
}

function flush() {
	endindented()
	sub(/\n\.(PP|IP)\n$/, "\n", block)
	printf "%s", block
	block = ""
}

BEGIN {
	print ".\\\" Generated from etc/fbripple.conf by etc/man/conf.awk: edit those, not this."
}

NR == 1 {
	# "# /etc/fbripple.conf - what it is"
	name = $0
	sub(/^# *[^ ]* - /, "", name)
	printf ".TH FBRIPPLE.CONF 5 \"%s\" \"fbripple %s\" \"File Formats\"\n", date, version
	print ".SH NAME"
	print "fbripple.conf \\- " roff(name)
	print ".SH SYNOPSIS"
	print ".B /etc/fbripple.conf"
	print ".SH DESCRIPTION"
	next
}

# the opening comment, up to the first group
!started && /^#/ { comment($0); next }
!started && /^[ \t]*$/ { para(); next }

/^[a-z_]+ = \{/ {
	if (!started) {
		flush()
		print ".SH KEYS"
		print "Each key below is shown as the file sets it: at its built\\-in default."
		started = 1
	}
	group = $1
	printf ".SS %s\n", group
	next
}

/^[ \t]*#/ { comment($0); next }
/^[ \t]*$/ { para(); next }
/^};/ { next }

/^[ \t]+[a-z_]+ = .*;$/ {
	key = $1
	value = $0
	sub(/^[^=]*= /, "", value)
	sub(/;$/, "", value)
	printf ".TP\n\\fB%s.%s\\fR = %s\n", group, key, roff(value)
	flush()
	next
}

{ printf "conf.awk: %s:%d: not understood: %s\n", FILENAME, FNR, $0 > "/dev/stderr"; bad = 1; exit 1 }

END {
	if (bad)
		exit 1
	print ".SH FILES"
	print ".TP"
	print ".I /etc/fbripple.conf"
	print "the configuration; without it fbripple uses the built\\-in defaults above."
	print ".SH SEE ALSO"
	print ".BR fbripple (8)"
}
