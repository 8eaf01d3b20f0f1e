#!/bin/sh
# Installs the Debian packages named as arguments when any is missing:
# directly as root, otherwise it prints the apt-get line and fails.
# -n: only says which are missing (and fails); -a ARCH: adds the
# foreign architecture ARCH to dpkg first (the :arm64 packages).
check=
arch=
while [ $# -gt 0 ]; do
	case $1 in
	-n) check=1; shift;;
	-a) arch=$2; shift 2;;
	*) break;;
	esac
done
missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ -n "$check" ]; then
	echo "wp: missing packages:$missing" >&2
	echo "run: make arm64-deps (or: sudo dpkg --add-architecture arm64;" \
	    "sudo apt-get update; sudo apt-get install -y$missing)" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "wp: missing packages:$missing" >&2
	[ -n "$arch" ] && echo "run: sudo dpkg --add-architecture $arch" >&2
	echo "run: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "wp: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
if [ -n "$arch" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
	dpkg --add-architecture "$arch" ||
		{ echo "wp: dpkg --add-architecture $arch failed" >&2; exit 1; }
fi
apt-get update -q >/dev/null &&
	apt-get install -y -q --no-install-recommends $missing >/dev/null ||
	{ echo "wp: apt-get install$missing failed" >&2; exit 1; }
