# copyright.awk - debian/copyright in Debian's machine-readable format, made from LICENSE (the
# MIT licence, "Expat" in Debian's names) so that the two say the same.
# Usage: awk -f copyright.awk LICENSE
NR == 1 {
	if ($0 != "MIT License") {
		print "copyright.awk: LICENSE is not the MIT License any more: update me" > "/dev/stderr"
		bad = 1
		exit 1
	}
	next
}
/^Copyright \(c\) / && holder == "" {
	holder = $0
	sub(/^Copyright \(c\) /, "", holder)
	next
}
holder == "" { next }
/^$/ { if (text != "") text = text " .\n"; next }
{ text = text " " $0 "\n" }
END {
	if (bad)
		exit 1
	if (holder == "" || text == "") {
		print "copyright.awk: no Copyright line or no licence text in LICENSE" > "/dev/stderr"
		exit 1
	}
	sub(/ \.\n$/, "", text)
	print "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
	print "Upstream-Name: fbripple"
	print ""
	print "Files: *"
	print "Copyright: " holder
	print "License: Expat"
	printf "%s", text
}
