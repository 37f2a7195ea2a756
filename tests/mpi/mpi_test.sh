#!/usr/bin/env bash
# MPI end-to-end checks (docs/distributed.md), run by ctest when chaintag is built with MPI:
#   1. `mpirun -np 3 chaintag train` writes the byte-identical model of one process (crf with 1
#      and 2 threads per rank, softmax-margin order 2, min-feature-count 2 with a dev file,
#      ssvm-slack by SGD); the perceptron (parameter mixing) gives the same bytes on every run;
#   2. `mpirun -np 3 chaintag tag -o DIR` and `-o FILE` write what one process writes;
#   3. checkpoints: a rank killed during training ends the job non-zero within seconds, without a
#      model, and --resume from its last checkpoint writes the model of a run never stopped;
#      damaged or mismatched checkpoints are refused;
#   4. the documented fan-out recipe (GNU parallel, or xargs -P without it) equals one process.
# Usage: mpi_test.sh CHAINTAG_BINARY [RANKS]. Small generated corpora: well under a minute.
set -euo pipefail
bin=$(realpath "$1")
ranks=${2:-3}
mpirun=(mpirun --allow-run-as-root --oversubscribe -np "$ranks")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# A chunking corpus from a fixed linear congruential generator: NP VP NP (PP NP) sentences.
generate() {  # generate SENTENCES SEED
  awk -v n="$1" -v seed="$2" 'function r(k) { seed = (seed * 1103515245 + 12345) % 2147483648; return int(seed / 65536) % k }
    BEGIN { split("the a this every", det); split("big red old new small", adj)
      split("dog cat car house tree idea market share", noun); split("sees likes has wants buys", verb)
      split("in on of", prep)
      for (i = 0; i < n; i++) {
        print det[r(4) + 1], "DT", "B-NP"; if (r(2)) print adj[r(5) + 1], "JJ", "I-NP"
        print noun[r(8) + 1], "NN", "I-NP"; print verb[r(5) + 1], "VBZ", "B-VP"
        if (r(4) == 0) print "word" i, "NNP", "B-NP"; else print det[r(4) + 1], "DT", "B-NP"
        print noun[r(8) + 1], "NN", "I-NP"
        if (r(2)) { print prep[r(3) + 1], "IN", "B-PP"; print noun[r(8) + 1], "NNS", "B-NP" }
        print ".", ".", "O"; print "" } }'
}
generate 300 7 >train.txt
generate 60 11 >dev.txt
generate 500 13 >test.txt

fail() { echo "mpi_test: FAIL: $*" >&2; exit 1; }

same_model() {  # same_model NAME OPTIONS...
  local name=$1
  shift
  "$bin" train --format conll --preset chunk "$@" -o "$name.1.model" train.txt 2>"$name.1.log" ||
    { cat "$name.1.log" >&2; fail "$name: one process failed"; }
  "${mpirun[@]}" "$bin" train --format conll --preset chunk "$@" -o "$name.p.model" train.txt \
    2>"$name.log" || { cat "$name.log" >&2; fail "$name: $ranks ranks failed"; }
  cmp "$name.1.model" "$name.p.model" || fail "$name: the $ranks-rank model differs"
  echo "mpi_test: ok: train $name: $ranks ranks = one process ($(wc -c <"$name.1.model") bytes)"
}
same_model crf-1-thread --threads 1 --max-iterations 40
same_model crf-2-threads --threads 2 --max-iterations 40
same_model softmax-margin-order-2 --objective softmax-margin --order 2 --max-iterations 15
same_model min-count-dev --min-feature-count 2 --dev dev.txt --max-iterations 20
same_model ssvm-slack-sgd --objective ssvm-slack --max-iterations 3 --threads 2

# Tagging: one output per input in a directory, and all inputs into one file.
mkdir one many
"$bin" tag -m crf-1-thread.1.model --format conll -o one test.txt dev.txt
"${mpirun[@]}" "$bin" tag -m crf-1-thread.1.model --format conll -o many test.txt dev.txt
for f in one/*; do cmp "$f" "many/$(basename "$f")" || fail "tag -o DIR: $f differs"; done
[ "$(ls -A many | wc -l)" -eq 2 ] || fail "tag -o DIR: expected 2 files, found $(ls -A many)"
"$bin" tag -m crf-1-thread.1.model --format conll -o one.conll dev.txt test.txt
"${mpirun[@]}" "$bin" tag -m crf-1-thread.1.model --format conll -o many.conll dev.txt test.txt
cmp one.conll many.conll || fail "tag -o FILE differs"
echo "mpi_test: ok: tag -o DIR and -o FILE: $ranks ranks = one process"

# The ranks' parts live in unlinked temporary files of their own: nothing is left in $TMPDIR, in
# the output's directory or in /dev, after success or failure.
mkdir parts-tmp
ls -A /dev >dev-before.txt
TMPDIR=$PWD/parts-tmp "${mpirun[@]}" -x TMPDIR "$bin" tag -m crf-1-thread.1.model --format conll \
  -o /dev/null test.txt
ls -A /dev | diff dev-before.txt - || fail "tag -o /dev/null left files in /dev"
{ cat test.txt; printf 'word\n\n'; } >broken.txt  # a token line without its label column
mkdir failed
if TMPDIR=$PWD/parts-tmp "${mpirun[@]}" -x TMPDIR "$bin" tag -m crf-1-thread.1.model \
  --format conll -o failed broken.txt 2>failed.log; then
  fail "tag of a broken file succeeded"
fi
[ -z "$(find parts-tmp failed -mindepth 1)" ] || fail "failed tag left: $(find parts-tmp failed -mindepth 1)"
echo "mpi_test: ok: tag parts leave nothing behind (-o /dev/null; a failed run: $(grep -m1 broken.txt failed.log))"

# Fan-out recipe of docs/distributed.md: one file per sentence block, tagged in parallel.
awk 'BEGIN { RS = ""; ORS = "\n\n" } { print > sprintf("block-%04d.conll", int((NR - 1) / 100)) }' test.txt
if command -v parallel >/dev/null; then
  ls block-*.conll | parallel -j 3 "$bin" tag -m crf-1-thread.1.model --format conll {} '>' {}.out
else
  ls block-*.conll | xargs -P 3 -I{} sh -c "'$bin' tag -m crf-1-thread.1.model --format conll {} > {}.out"
fi
cat block-*.conll.out | cmp - one/test.txt.conll || fail "fan-out recipe differs"
echo "mpi_test: ok: fan-out recipe = one process"

# The perceptron by iterative parameter mixing: the same bytes on every run for a given P.
for run in 1 2; do
  "${mpirun[@]}" "$bin" train --format conll --preset chunk --objective perceptron \
    --max-iterations 5 --dev dev.txt -o "perceptron.$run.model" train.txt 2>"perceptron.$run.log" ||
    { cat "perceptron.$run.log" >&2; fail "perceptron over $ranks ranks failed"; }
done
cmp perceptron.1.model perceptron.2.model || fail "perceptron: two runs over $ranks ranks differ"
echo "mpi_test: ok: perceptron (parameter mixing), $ranks ranks, two runs identical:" \
  "$(grep -m1 'iter    5' perceptron.1.log)"

# Checkpoints: a run with --checkpoint over the ranks writes the model of one process with it.
same_model checkpoint-owlqn --algorithm owlqn --c1 0.5 --checkpoint ck.bin --checkpoint-every 4 \
  --max-iterations 30

# A rank killed mid-training: the job must end non-zero within seconds and write no model; then
# --resume from its last checkpoint completes it with the model of a run that was never stopped.
generate 3000 17 >long.txt
long=(train --format conll --preset chunk --threads 1 --max-iterations 100 --tolerance 0)
"${mpirun[@]}" "$bin" "${long[@]}" --checkpoint killed.ckpt --checkpoint-every 5 \
  -o killed.model long.txt >killed.log 2>&1 &
job=$!
victim=""
for _ in $(seq 1 300); do
  for p in $(pgrep -P "$job" || true); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then
      victim=$p
    fi
  done
  # Wait until training has saved its first checkpoint.
  if [ -n "$victim" ] && [ -e killed.ckpt ]; then break; fi
  sleep 0.1
done
[ -n "$victim" ] || fail "killed rank: rank 1 never started"
[ -e killed.ckpt ] || fail "killed rank: no checkpoint was written"
kill -9 "$victim"
start=$(date +%s)
for _ in $(seq 1 300); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$job" 2>/dev/null; then
  kill "$job"
  fail "killed rank: the job was still running 30 s after rank 1 died"
fi
rc=0
wait "$job" || rc=$?
[ "$rc" -ne 0 ] || fail "killed rank: the job exited 0"
[ ! -e killed.model ] || fail "killed rank: a model was written"
grep -q "exited on signal 9" killed.log || { cat killed.log >&2; fail "killed rank: no message"; }
echo "mpi_test: ok: killed rank 1 at $(grep -c '^iter' killed.log) iterations: exit $rc after" \
  "$(($(date +%s) - start)) s: $(grep -m1 'signal 9' killed.log)"
"${mpirun[@]}" "$bin" "${long[@]}" --resume killed.ckpt --checkpoint killed.ckpt --checkpoint-every 5 \
  -o resumed.model long.txt 2>resumed.log || { cat resumed.log >&2; fail "resume failed"; }
"$bin" "${long[@]}" --checkpoint straight.ckpt -o straight.model long.txt 2>straight.log ||
  { cat straight.log >&2; fail "straight run failed"; }
cmp straight.model resumed.model || fail "resumed model differs from the straight run"
# A completed run keeps its last checkpoint (docs/distributed.md); the checks below read it.
[ -s straight.ckpt ] || fail "a completed run removed its checkpoint"
echo "mpi_test: ok: resumed from the checkpoint of iteration" \
  "$(awk '/^iter/ { print $2 - 1; exit }' resumed.log): model = one process that ran straight through ($(wc -c <straight.model) bytes)"

# Checkpoint files are user input: damaged, foreign or mismatched files are refused.
refused() {  # refused FILE EXPECTED-MESSAGE OPTIONS...
  local file=$1 expected=$2
  shift 2
  if "$bin" "${long[@]}" "$@" --resume "$file" -o never.model long.txt 2>refused.log; then
    fail "resume from $file succeeded"
  fi
  grep -q "$expected" refused.log || { cat refused.log >&2; fail "resume $file: no '$expected'"; }
  [ ! -e never.model ] || fail "resume $file: a model was written"
  echo "mpi_test: ok: refused: $(tail -1 refused.log)"
}
head -c 1000 straight.ckpt >truncated.ckpt
refused truncated.ckpt "checksum mismatch"
cp straight.ckpt flipped.ckpt
printf '\x55' | dd of=flipped.ckpt bs=1 seek=5000 conv=notrunc status=none
refused flipped.ckpt "checksum mismatch"
refused long.txt "not a chaintag checkpoint"
refused straight.ckpt "other training options (saved c2=1, now c2=2)" --c2 2
"$bin" train --format conll --preset chunk --threads 1 --max-iterations 100 --tolerance 0 \
  --resume straight.ckpt -o never.model train.txt 2>refused.log && fail "other data accepted"
grep -q "other training data" refused.log || { cat refused.log >&2; fail "no data message"; }
echo "mpi_test: ok: refused: $(tail -1 refused.log)"
