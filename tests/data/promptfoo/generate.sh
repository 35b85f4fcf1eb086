#!/bin/sh
# Writes results.json (three providers) and results-guesser.json (the labelled provider alone) with promptfoo,
# offline: the provider is the local script provider.js, and telemetry, update checks, sharing and the
# results database are off. Needs promptfoo 0.121.20: npm install promptfoo@0.121.20 (in a folder of its own),
# then PROMPTFOO=/that/folder/node_modules/.bin/promptfoo sh generate.sh
set -eu
cd "$(dirname "$0")"
PROMPTFOO=${PROMPTFOO:-promptfoo}
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_DISABLE_SHARING=1 \
  PROMPTFOO_DISABLE_REMOTE_GENERATION=1 DO_NOT_TRACK=1
PROMPTFOO_CONFIG_DIR=$(mktemp -d)
export PROMPTFOO_CONFIG_DIR
"$PROMPTFOO" eval -c promptfooconfig.yaml -o results.json --repeat 3 -j 1 \
  --no-cache --no-progress-bar --no-table --no-share --no-write || test $? -eq 100
"$PROMPTFOO" eval -c promptfooconfig.yaml -o results-guesser.json --repeat 3 -j 1 --filter-providers guesser \
  --no-cache --no-progress-bar --no-table --no-share --no-write || test $? -eq 100
rm -rf "$PROMPTFOO_CONFIG_DIR"
