#!/usr/bin/env python3
"""POS accuracy from raw text: tags the `# text` lines of a CoNLL-U file as raw text with a POS
model, aligns the predicted tokens to the gold words by character span, and reports XPOS accuracy
over the gold words (a gold word without a predicted token of exactly its span counts as an error).

    tools/experiments/eval-raw-text.py [--model models/en-pos.model] [--chaintag build/chaintag] FILE.conllu
"""
import argparse
import pathlib
import subprocess
import sys


REPO = pathlib.Path(__file__).resolve().parents[2]


def read_conllu(path):
    sentences, text, words = [], None, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if words:
                    sentences.append((text, words))
                text, words = None, []
            elif line.startswith("# text = "):
                text = line[len("# text = "):]
            elif not line.startswith("#"):
                fields = line.split("\t")
                if "-" in fields[0] or "." in fields[0]:
                    continue
                words.append((fields[1], fields[4]))
    if words:
        sentences.append((text, words))
    return sentences


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("conllu")
    parser.add_argument("--model", default=str(REPO / "models" / "en-pos.model"))
    # Defaults are found from this script's place in the repository, not the working directory.
    parser.add_argument("--chaintag", default=str(REPO / "build" / "chaintag"))
    args = parser.parse_args()
    sentences = read_conllu(args.conllu)
    # One paragraph per gold sentence; gold spans in code points of the whole document.
    doc, gold, offset = [], [], 0
    for text, words in sentences:
        cursor = 0
        for form, tag in words:
            at = text.find(form, cursor)
            if at < 0:
                gold.append((None, tag))  # not a substring of the text (cannot align)
                continue
            gold.append(((offset + at, offset + at + len(form)), tag))
            cursor = at + len(form)
        doc.append(text)
        offset += len(text) + 2
    run = subprocess.run([args.chaintag, "tag", "-m", args.model, "--output-format", "conll", "-"],
                         input="\n\n".join(doc) + "\n", capture_output=True, text=True, encoding="utf-8")
    if run.returncode != 0:
        sys.exit("chaintag failed: " + run.stderr)
    predicted = {}
    tokens = 0
    for line in run.stdout.splitlines():
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        predicted[(int(fields[-2]), int(fields[-1]))] = fields[2]
        tokens += 1
    correct = aligned = 0
    for span, tag in gold:
        if span is not None and span in predicted:
            aligned += 1
            correct += predicted[span] == tag
    n = len(gold)
    print(f"gold words {n}, predicted tokens {tokens}, aligned {aligned} ({100.0 * aligned / n:.2f}%), "
          f"XPOS accuracy from raw text {100.0 * correct / n:.2f}% "
          f"(on aligned words {100.0 * correct / max(aligned, 1):.2f}%)")


if __name__ == "__main__":
    main()
