#!/bin/sh
# make demo: start the bundled game, watch its score, print the answer,
# stop the game.
b=${1:-build}
PATH="$b:$(pwd):$PATH"
"$b/wp-demo" > "$b/wp-demo.out" &
demo=$!
trap 'kill $demo 2>/dev/null; wait $demo 2>/dev/null' EXIT INT TERM
sleep 0.3
head -n 1 "$b/wp-demo.out"
if [ -x "$b/wp-report" ]; then
	echo "\$ wp-resolve -p $demo score | wp-arm -d 3s | wp-decode | wp-report"
	wp-resolve -p "$demo" score | wp-arm -d 3s | wp-decode | wp-report
else
	echo "(wp-arm, wp-decode and wp-report are not built yet)"
	echo "\$ wp-resolve -p $demo score | jq -c 'del(.mappings, .modules)'"
	wp-resolve -p "$demo" score | jq -c 'del(.mappings, .modules)'
fi
