#!/usr/bin/env bash
# Regenerates the model_fuzzer seeds: tiny models trained on tests/fixtures (plain and --compress).
# Usage: tests/fuzz/make_model_seeds.sh PATH/TO/chaintag
set -euo pipefail
cd "$(dirname "$0")/../.."
chaintag=$(realpath "$1")
out=tests/fuzz/seeds/model
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'U00:%%x[0,0]\nU01:%%x[0,1]\nU02:suf2(lower(%%x[-1,0]))\nB\n' > "$tmp/t.tmpl"
printf 'U00:%%x[0,0]\nU01:lex(%%x[0,0])\nB\n' > "$tmp/lex.tmpl"
printf 'The\tDT\ndog\tNN\ncat\tNN VB\n' > "$tmp/lex"
"$chaintag" train --format conll --template "$tmp/t.tmpl" -o "$out/chunk-tiny.model" \
  tests/fixtures/cli/sample.conll
"$chaintag" train --format conll --template "$tmp/t.tmpl" --compress -o "$out/chunk-tiny.model.gz" \
  tests/fixtures/cli/sample.conll
"$chaintag" train --format tagged --template "$tmp/lex.tmpl" --lexicon "$tmp/lex" \
  -o "$out/pos-lexicon.model" tests/fixtures/cli/pos.tagged
"$chaintag" train --format tagged --preset pos --compress --objective perceptron \
  -o "$out/pos-preset.model.gz" tests/fixtures/cli/pos.tagged
