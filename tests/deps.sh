#!/bin/sh
# Installs the Debian packages named as arguments when any is missing:
# directly as root, otherwise it prints the apt-get line and fails.
missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "wp: missing packages:$missing" >&2
	echo "run: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "wp: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null &&
	apt-get install -y -q --no-install-recommends $missing >/dev/null ||
	{ echo "wp: apt-get install$missing failed" >&2; exit 1; }
