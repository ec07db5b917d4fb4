"""cubin.py: what tools/amd-dpp-counts.py and tools/ptxas-shared-merges.py
read from a cubin that ptxas wrote, with no disassembler: each kernel's
.text section, and the opcode of each 16-byte SASS instruction (its low
12 bits, sm_70 and later; e.g. 0x984 LDS, 0x388 STS, 0x981 LDG, 0x986 STG,
0x918 NOP, 0x947 BRA, 0x94d EXIT)."""
import struct


def text_sections(path):
    """The kernels' .text sections of an ELF64 cubin: name -> bytes."""
    d = open(path, 'rb').read()
    shoff = struct.unpack_from('<Q', d, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3A)
    secs = [struct.unpack_from('<IIQQQQ', d, shoff + i * shentsize) for i in range(shnum)]
    stro = secs[shstrndx][4]
    out = {}
    for name, _t, _f, _a, off, size in secs:
        n = d[stro + name:d.index(b'\0', stro + name)].decode()
        if n.startswith('.text.'):
            out[n[len('.text.'):]] = d[off:off + size]
    return out


def instructions(text):
    """(opcode, high 64 bits) of each 16-byte instruction of a .text."""
    for i in range(0, len(text), 16):
        lo, hi = struct.unpack_from('<QQ', text, i)
        yield lo & 0xFFF, hi
