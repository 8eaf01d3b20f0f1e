#!/bin/sh
# make demo: start the bundled game, watch its score for a few seconds
# with wp watch, print the report, stop the game.
b=${1:-build}
PATH="$b:$PATH"
export WP_BUILD="$b"
"$b/wp-demo" > "$b/wp-demo.out" &
demo=$!
trap 'kill $demo 2>/dev/null; wait $demo 2>/dev/null' EXIT INT TERM
while [ ! -s "$b/wp-demo.out" ]; do sleep 0.05; done
cat "$b/wp-demo.out"
echo "\$ wp watch -d 3s $demo score"
wp watch -d 3s "$demo" score
status=$?
kill -0 $demo 2>/dev/null && echo "(the game is still running after the watch: stopping it)"
exit $status
