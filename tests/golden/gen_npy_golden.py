#!/usr/bin/env python3
"""Golden .npy files as numpy writes them, and the values they hold.

Writes into tests/golden/npy/: arrays numpy saves with np.save (format
1.0): f32_2x3, i64_5, bool_scalar, u8_4, f16_3, c64_2, f64_2x0x3, and
f32_v2 (the same floats as f32_2x3, written in format 2.0); files the
reader must refuse: fortran (Fortran order), big_endian ('>f4'),
unicode ('<U3'), truncated (f32_2x3 without its last 3 bytes),
bad_magic, header_past_end (a header length beyond the file). Writes
tests/golden/npy_values.txt: per good file but the complex one a line
"name dtype dims..." and a line of its elements.

  gen_npy_golden.py           regenerate the files
  gen_npy_golden.py --check   exit 1 unless every file is reproduced byte for byte
"""
import io
import os
import sys

import numpy as np

from golden_io import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(HERE, "npy")
VALUES = os.path.join(HERE, "npy_values.txt")


def npy(a, version=None):
    f = io.BytesIO()
    if version is None:
        np.save(f, a, allow_pickle=False)
    else:
        np.lib.format.write_array(f, a, version=version, allow_pickle=False)
    return f.getvalue()


def arrays():
    rng = np.random.RandomState(20261123)
    return {
        "f32_2x3": (rng.standard_normal((2, 3)).astype(np.float32), "float"),
        "i64_5": (rng.randint(-2**40, 2**40, size=(5,)).astype(np.int64),
                  "int64"),
        "bool_scalar": (np.array(True), "bool"),
        "u8_4": (rng.randint(0, 256, size=(4,)).astype(np.uint8), "uint8"),
        "f16_3": (rng.standard_normal(3).astype(np.float16), "half"),
        "c64_2": ((rng.standard_normal(2) + 1j * rng.standard_normal(2))
                  .astype(np.complex64), "complex64"),
        "f64_2x0x3": (np.zeros((2, 0, 3), np.float64), "double"),
    }


def element_text(a):
    if a.dtype.kind == "f":
        return " ".join("%.17g" % float(v) for v in a.ravel())
    return " ".join("%d" % int(v) for v in a.ravel())


def outputs():
    good = arrays()
    f32 = good["f32_2x3"][0]
    files = {name + ".npy": npy(a) for name, (a, _) in good.items()}
    files["f32_v2.npy"] = npy(f32, version=(2, 0))
    files["fortran.npy"] = npy(np.asfortranarray(
        np.arange(6, dtype=np.float32).reshape(2, 3)))
    files["big_endian.npy"] = npy(f32.astype(">f4"))
    files["unicode.npy"] = npy(np.array(["abc", "de"]))
    files["truncated.npy"] = files["f32_2x3.npy"][:-3]
    files["bad_magic.npy"] = b"\x93NUMPZ\x01\x00" + files["f32_2x3.npy"][8:]
    past = bytearray(files["f32_2x3.npy"])
    past[8:10] = (len(past)).to_bytes(2, "little")
    files["header_past_end.npy"] = bytes(past)
    out = {os.path.join(DIR, k): v for k, v in files.items()}
    lines = []
    for name, (a, kind) in good.items():
        if a.dtype.kind == "c":
            continue  # the golden reader has no complex numbers
        lines.append(" ".join([name, kind] + [str(d) for d in a.shape]))
        lines.append(element_text(a))
    out[VALUES] = ("\n".join(lines) + "\n").encode()
    return out


def main():
    os.makedirs(DIR, exist_ok=True)
    return write_or_check(__doc__, outputs())


if __name__ == "__main__":
    sys.exit(main())
