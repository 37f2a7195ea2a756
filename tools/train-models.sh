#!/usr/bin/env bash
# Reproduces the shipped models in models/ from the reference corpora (../shared/corpora, or
# CORPORA=DIR), with the build in build/ (BUILD=DIR). Prints each model's dev figures.
#   tools/train-models.sh [pos|chunk|np|pos-nn|chunk-nn|np-nn ...]   (default: pos chunk np, the fast models)
# pos-nn, chunk-nn and np-nn are the accurate POS tagger, chunker and NP chunker (hybrid neural
# models, docs/neural.md), trained only when named; EMBEDDINGS=FILE reuses
# word vectors made by the same `chaintag embeddings` command as the script runs.
# POS_ORDER=2 / CHUNK_ORDER=2 train second-order chains instead (more accurate on dev, about half
# the tagging speed; models/MODELS.md); POS_C1, CHUNK_C1, ... override the regularisation.
# LAUNCH="mpirun -np 2" runs each `train` under that launcher (MPI ranks, docs/distributed.md;
# add --allow-run-as-root --oversubscribe as needed); the models are the same bytes as without it.
set -euo pipefail
cd "$(dirname "$0")/.."
corpora=${CORPORA:-../shared/corpora}
chaintag=${BUILD:-build}/chaintag
threads=${THREADS:-$(nproc)}
# Prefixed to the `train` commands only (the other steps are one process).
read -r -a launch <<<"${LAUNCH:-}"
[ -x "$chaintag" ] || { echo "train-models: build chaintag first (tools/setup.sh)" >&2; exit 1; }
[ -d "$corpora" ] || { echo "train-models: no corpora at $corpora (see corpora/fetch.sh)" >&2; exit 1; }
# A fixed scratch folder, the same for every BUILD: models record their training file names, so
# a random temporary name (or one under the build folder) would make two runs' model files differ.
work=train-models-work
rm -rf "$work" && mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(pos chunk np)

# Brown clusters (C = 256) of the unlabeled English text, for the POS and chunk models' cluster()
# templates (stored in each model). Deterministic for any thread count.
# CLUSTERS=FILE reuses a paths file made by that same command.
clusters() {
  if [ -n "${CLUSTERS:-}" ]; then
    cp "$CLUSTERS" "$work/paths.txt"
  elif [ ! -f "$work/paths.txt" ]; then
    "$chaintag" clusters --clusters 256 --min-count 3 --threads "$threads" -o "$work/paths.txt" \
      "$corpora"/unlabeled-en/*.txt.gz
  fi
}

# Skipgram word vectors with subword n-grams of the same text, for the -nn models; one thread, so the same
# bytes on every run (docs/embeddings.md).
embeddings() {
  if [ -n "${EMBEDDINGS:-}" ]; then
    cp "$EMBEDDINGS" "$work/vec.bin"
  elif [ ! -f "$work/vec.bin" ]; then
    "$chaintag" embeddings --threads 1 -o "$work/vec.bin" "$corpora"/unlabeled-en/*.txt.gz
  fi
}

# Base NPs: CoNLL-2000 with every non-NP chunk tag mapped to O, for np and np-nn.
np_data() {
  for split in train dev; do
    awk 'NF == 3 && $3 !~ /-NP$/ { $3 = "O" } { print }' "$corpora/conll2000/$split.txt" > "$work/np-$split.txt"
  done
}

for m in "${models[@]}"; do
  case "$m" in
    pos)
      # Penn tags: EWT train (XPOS) plus the WSJ treebank sample, converted to CoNLL-U.
      # Softmax-margin with a lighter L1 term beat the CRF at c1 = 0.5 on EWT dev (MODELS.md).
      # Word classes: the tags each word carries in CoNLL-2000's WSJ text (a tag lexicon stored
      # in the model), which lends the tagger the vocabulary EWT train lacks.
      "$chaintag" convert --from ptb --to conllu -o "$work/ptb.conllu" "$corpora"/ptb-sample/wsj_*.mrg
      "$chaintag" lexicon --format conll --label-column 2 -o "$work/wsj-tags.lex" \
        "$corpora/conll2000/train.txt" "$corpora/conll2000/dev.txt"
      # Word clusters of unlabeled text (models/MODELS.md: +0.13 dev, +1.2 on unseen words).
      clusters
      ${launch[@]+"${launch[@]}"} "$chaintag" train --format conllu --label xpos --preset pos-lexicon-clusters \
        --lexicon "$work/wsj-tags.lex" --clusters "$work/paths.txt" \
        --order ${POS_ORDER:-1} --objective softmax-margin --loss hamming \
        --algorithm ${POS_ALGORITHM:-owlqn} \
        --c1 ${POS_C1:-0.2} --c2 ${POS_C2:-0.05} --max-iterations ${MAX_ITERATIONS:-300} --threads "$threads" \
        --dev "$corpora/ud-english-ewt/en_ewt-ud-dev.conllu" -o models/en-pos.model \
        "$corpora/ud-english-ewt/en_ewt-ud-train.conllu" "$work/ptb.conllu"
      "$chaintag" eval -m models/en-pos.model --format conllu --label xpos "$corpora/ud-english-ewt/en_ewt-ud-dev.conllu" | head -n 3
      ;;
    chunk)
      # Softmax-margin (Hamming loss) beat the CRF on dev with these features (docs/training.md);
      # with word clusters a lighter L1 term (c1 0.2) did better than 0.5 (models/MODELS.md).
      clusters
      ${launch[@]+"${launch[@]}"} "$chaintag" train --format conll --preset chunk --clusters "$work/paths.txt" \
        --order ${CHUNK_ORDER:-1} --objective softmax-margin --loss hamming \
        --algorithm ${CHUNK_ALGORITHM:-owlqn} \
        --c1 ${CHUNK_C1:-0.2} --c2 ${CHUNK_C2:-0.05} --max-iterations ${MAX_ITERATIONS:-300} --threads "$threads" \
        --dev "$corpora/conll2000/dev.txt" -o models/en-chunk.model "$corpora/conll2000/train.txt"
      "$chaintag" eval -m models/en-chunk.model "$corpora/conll2000/dev.txt" | head -n 3
      ;;
    np)
      np_data
      # A latent-dynamic CRF with 2 hidden states per label (issue 14: dev F1 95.86 against the
      # plain CRF's 95.47 with the same features and regularisation).
      ${launch[@]+"${launch[@]}"} "$chaintag" train --format conll --preset np --objective ldcrf --latent 2 \
        --algorithm ${NP_ALGORITHM:-owlqn} --c1 ${NP_C1:-0.5} --c2 ${NP_C2:-0.05} --lbfgs-memory 6 \
        --max-iterations ${MAX_ITERATIONS:-300} --early-stopping 15 --threads "$threads" \
        --dev "$work/np-dev.txt" -o models/en-np.model "$work/np-train.txt"
      "$chaintag" eval -m models/en-np.model "$work/np-dev.txt" | head -n 3
      ;;
    pos-nn)
      # The accurate POS tagger beside en-pos: the same word classes and clusters as en-pos, added
      # to a neural encoder (word vectors, character CNN, 2 BiLSTM layers) and trained together
      # with it (--encoder hybrid, Adam, early stopping on dev, the mean of the last 3 epochs kept
      # when better on dev; 30,000 words with an int8 embedding; docs/neural.md). EWT dev XPOS in
      # models/MODELS.md against en-pos's 94.98%; the model does not depend on $threads.
      "$chaintag" lexicon --format conll --label-column 2 -o "$work/wsj-tags.lex" \
        "$corpora/conll2000/train.txt" "$corpora/conll2000/dev.txt"
      clusters
      embeddings
      ${launch[@]+"${launch[@]}"} "$chaintag" train --format conllu --label xpos --preset pos-lexicon-clusters \
        --lexicon "$work/wsj-tags.lex" --clusters "$work/paths.txt" \
        --encoder hybrid --embeddings "$work/vec.bin" --layers 2 --epochs 30 --patience 5 \
        --average-epochs 3 --max-vocabulary 30000 \
        --compress --threads "$threads" --dev "$corpora/ud-english-ewt/en_ewt-ud-dev.conllu" -o models/en-pos-nn.model \
        "$corpora/ud-english-ewt/en_ewt-ud-train.conllu"
      "$chaintag" eval -m models/en-pos-nn.model --format conllu --label xpos "$corpora/ud-english-ewt/en_ewt-ud-dev.conllu" | head -n 3
      ;;
    chunk-nn)
      # The accurate chunker beside en-chunk: en-chunk's clusters and templates added to a neural
      # encoder (word vectors, character CNN, one BiLSTM layer) and trained together with it (as
      # pos-nn; one layer matched two on dev, 95.78 against 95.77, at twice the speed: docs/neural.md).
      clusters
      embeddings
      ${launch[@]+"${launch[@]}"} "$chaintag" train --format conll --preset chunk --clusters "$work/paths.txt" \
        --encoder hybrid --embeddings "$work/vec.bin" --layers 1 --epochs 20 --patience 3 \
        --average-epochs 3 --max-vocabulary 30000 \
        --compress --threads "$threads" --dev "$corpora/conll2000/dev.txt" -o models/en-chunk-nn.model \
        "$corpora/conll2000/train.txt"
      "$chaintag" eval -m models/en-chunk-nn.model "$corpora/conll2000/dev.txt" | head -n 3
      ;;
    np-nn)
      # The accurate base-NP chunker beside en-np: the np templates with en-chunk's clusters, added to
      # the neural encoder of chunk-nn (one BiLSTM layer) and trained together with it.
      np_data
      clusters
      embeddings
      ${launch[@]+"${launch[@]}"} "$chaintag" train --format conll --preset np --clusters "$work/paths.txt" \
        --encoder hybrid --embeddings "$work/vec.bin" --layers 1 --epochs 20 --patience 3 \
        --average-epochs 3 --max-vocabulary 30000 \
        --compress --threads "$threads" --dev "$work/np-dev.txt" -o models/en-np-nn.model "$work/np-train.txt"
      "$chaintag" eval -m models/en-np-nn.model "$work/np-dev.txt" | head -n 3
      ;;
    *) echo "train-models: unknown model '$m' (pos, chunk, np, pos-nn, chunk-nn, np-nn)" >&2; exit 2 ;;
  esac
done
