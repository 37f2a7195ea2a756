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
# A tiny hybrid model (sparse templates plus the neural encoder's 'neural' section).
"$chaintag" train --format conll --template "$tmp/t.tmpl" --encoder hybrid --epochs 2 \
  --word-dim 4 --hidden 4 --char-filters 2 -o "$out/hybrid-tiny.model" tests/fixtures/cli/sample.conll
# The same with a character BiLSTM (encoder section version 4).
"$chaintag" train --format conll --template "$tmp/t.tmpl" --encoder hybrid --epochs 2 \
  --word-dim 4 --hidden 4 --char-filters 2 --char-encoder bilstm -o "$out/hybrid-bilstm-tiny.model" \
  tests/fixtures/cli/sample.conll
# The tiny chunk model with its templates section nested 40 calls deep (over the parser's cap of
# 32), checksums valid: the loader must refuse it with a message (issue 27 item 3).
/usr/bin/python3 - "$out/chunk-tiny.model" "$out/nested-templates.model" <<'PY'
import struct, sys
def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
src = open(sys.argv[1], 'rb').read()
count = struct.unpack_from('<I', src, 12)[0]
table = [list(struct.unpack_from('<IIQQ', src, 24 + 24 * i)) for i in range(count)]
deep = ('U00:' + 'lower(' * 40 + '%x[0,0]' + ')' * 40 + '\nB\n').encode()
body_start = 24 + 24 * count + 4
body = b''
for entry in sorted(table, key=lambda e: e[2]):
    data = deep if entry[0] == 2 else src[entry[2]:entry[2] + entry[3]]
    body += b'\0' * (-(body_start + len(body)) % 64)  # sections start at multiples of 64
    entry[1], entry[2], entry[3] = crc32c(data), body_start + len(body), len(data)
    body += data
header = b'CHAINTAG' + src[8:16] + struct.pack('<Q', body_start + len(body))
header += b''.join(struct.pack('<IIQQ', *e) for e in table)
open(sys.argv[2], 'wb').write(header + struct.pack('<I', crc32c(header)) + body)
PY
