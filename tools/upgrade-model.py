#!/usr/bin/env python3
"""Rewrites a chaintag model of format 2, 3 or 4 as format 5 (docs/model-format.md).

Only the layout changes: the attributes section becomes the dictionary's hash table and the
parameters section the tagging layout; every other section is copied. The result is the file
that training the same model with this chaintag writes (tools/train-models.sh), so the shipped
models can be converted without retraining. Gzip-compressed input is written back compressed.

  tools/upgrade-model.py OLD.model NEW.model

Standard library only (any python3). A file it cannot convert is named with the reason, exit 1,
and NEW is not written.
"""
import array
import gzip
import os
import struct
import sys
import tempfile
import zlib

ALIGN = 64
MASK64 = (1 << 64) - 1
K0, K1, K2 = 0xA0761D6478BD642F, 0xE7037ED1A0B428DB, 0x8EBC6AF09C88C6E3
OFFSET_BITS = 40

_CRC_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ (0x82F63B78 if _c & 1 else 0)
    _CRC_TABLE.append(_c)


def crc32c(data):
    crc = 0xFFFFFFFF
    table = _CRC_TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def folded_multiply(a, b):
    p = a * b
    return (p & MASK64) ^ (p >> 64)


class ConversionError(Exception):
    pass


def require(condition, message):
    # Not assert: python -O would drop the checks.
    if not condition:
        raise ConversionError(message)


def le(data):
    return int.from_bytes(data, "little")


def attribute_hash(s):
    """AttributeDictionary::Hash (src/features/dictionary.cc)."""
    n = len(s)
    seed, a, b = K0, 0, 0
    if n <= 16:
        if n >= 4:
            mid = (n >> 3) << 2
            a = le(s[0:4]) << 32 | le(s[mid:mid + 4])
            b = le(s[n - 4:n]) << 32 | le(s[n - 4 - mid:n - mid])
        elif n > 0:
            a = s[0] << 16 | s[n >> 1] << 8 | s[n - 1]
    else:
        p, i = 0, n
        while i > 16:
            seed = folded_multiply(le(s[p:p + 8]) ^ K1, le(s[p + 8:p + 16]) ^ seed)
            p, i = p + 16, i - 16
        a = le(s[p + i - 16:p + i - 8])
        b = le(s[p + i - 8:p + i])
    return folded_multiply(folded_multiply(a ^ K1, b ^ seed) ^ K0 ^ n, K2)


def dictionary_table(names):
    """The attributes section: what Reserve(n) then Insert of each name builds."""
    capacity = 16
    while len(names) * 2 > capacity:
        capacity *= 2
    slots = [0] * capacity
    arena = bytearray(b"\0" if names else b"")
    for i, name in enumerate(names):
        h = attribute_hash(name)
        j = h & (capacity - 1)
        while slots[j]:
            j = (j + 1) & (capacity - 1)
        offset = len(arena)
        slots[j] = (h >> OFFSET_BITS) << OFFSET_BITS | offset
        arena += struct.pack("<iI", i, len(name)) + name
    return (struct.pack("<QQQ", len(names), capacity, len(arena)) +
            struct.pack("<%dQ" % capacity, *slots) + bytes(arena))


def convert_attributes(data):
    (count,) = struct.unpack_from("<I", data, 0)
    pos, names = 4, []
    for _ in range(count):
        (n,) = struct.unpack_from("<I", data, pos)
        names.append(data[pos + 4:pos + 4 + n])
        pos += 4 + n
    require(pos == len(data), "attributes section has trailing bytes")
    return dictionary_table(names)


def convert_parameters(data):
    n, num_attr, num_features = struct.unpack_from("<IIQ", data, 0)
    offsets_end = 16 + 4 * (num_attr + 1)
    weights_at = offsets_end + 4 * num_features
    require(weights_at + 4 * num_features <= len(data), "parameters section is truncated")
    labels = array.array("I", data[offsets_end:weights_at])
    weights = array.array("I", data[weights_at:weights_at + 4 * num_features])
    chain = data[weights_at + 4 * num_features:]
    require(len(chain) == 4 * (n * n + 2 * n), "parameters section has an unexpected size")
    pairs = array.array("I", bytes(8 * num_features))
    pairs[0::2] = labels
    pairs[1::2] = weights
    if sys.byteorder == "big":
        pairs.byteswap()
    entries = pairs.tobytes()
    pad = b"\0\0\0\0" if num_attr % 2 == 0 else b""
    return data[:offsets_end] + pad + entries + chain


def convert(image):
    require(len(image) >= 28 and image[:8] == b"CHAINTAG", "not a chaintag model")
    version, count, size = struct.unpack_from("<IIQ", image, 8)
    require(version in (2, 3, 4), "expected model format 2, 3 or 4, found %d" % version)
    require(size == len(image) and 24 + 24 * count <= size, "truncated model")
    table = [struct.unpack_from("<IIQQ", image, 24 + 24 * i) for i in range(count)]
    sections = []
    for sid, crc, offset, length in table:
        data = image[offset:offset + length]
        require(offset + length <= len(image) and crc32c(data) == crc,
                "section %d checksum mismatch" % sid)
        if sid == 3:
            data = convert_attributes(data)
        elif sid == 4:
            data = convert_parameters(data)
        sections.append((sid, data))
    header_end = 24 + 24 * len(sections) + 4
    entries, body, pos = [], bytearray(), header_end
    for sid, data in sections:
        aligned = (pos + ALIGN - 1) // ALIGN * ALIGN
        body += b"\0" * (aligned - pos)
        entries.append(struct.pack("<IIQQ", sid, crc32c(data), aligned, len(data)))
        body += data
        pos = aligned + len(data)
    header = b"CHAINTAG" + struct.pack("<IIQ", 5, len(sections), pos) + b"".join(entries)
    return header + struct.pack("<I", crc32c(header)) + bytes(body)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: tools/upgrade-model.py OLD.model NEW.model\n")
        sys.exit(2)
    source, target = sys.argv[1], sys.argv[2]
    try:
        with open(source, "rb") as f:
            raw = f.read()
        compressed = raw[:2] == b"\x1f\x8b"
        out = convert(gzip.decompress(raw) if compressed else raw)
    except (OSError, EOFError, zlib.error, struct.error, ConversionError) as e:
        sys.exit("upgrade-model: %s: %s" % (source, e))
    if compressed:
        out = gzip.compress(out, 9, mtime=0)
    if os.path.exists(target) and not os.path.isfile(target):
        sys.exit("upgrade-model: %s: not a regular file; give a file path" % target)
    # Written beside the target and renamed over it, so a failed write leaves no partial model.
    folder = os.path.dirname(os.path.abspath(target))
    try:
        fd, temp = tempfile.mkstemp(prefix=".upgrade-", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(out)
            os.replace(temp, target)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError as e:
        sys.exit("upgrade-model: %s: %s" % (target, e))


if __name__ == "__main__":
    main()
