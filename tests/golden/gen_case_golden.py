#!/usr/bin/env python3
"""Golden op cases computed with numpy, for tests/ops/op_cases_test.cpp.

Writes tests/golden/<family>_cases.txt (math, array, nn, dispatch): each case names
an op, its attrs and inputs, and either the outputs numpy computes or the
error the kernel must report; and tests/golden/model.txt, a small network's
forward pass (model_golden.py). Cases cover broadcasting corner cases,
empty tensors, scalars, non-contiguous layouts (transposes, strided slices)
and integer overflow edges. The format is documented in
tests/common/op_cases.hpp.

  gen_case_golden.py           regenerate the files
  gen_case_golden.py --check   exit 1 unless they are reproduced byte for byte
"""
import os
import sys

from case_writer import Cases
from golden_io import write_or_check
import cases_array
import cases_dispatch
import cases_math
import cases_nn
import model_golden

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    outputs = {}
    for family, module in (("math", cases_math), ("array", cases_array),
                           ("nn", cases_nn), ("dispatch", cases_dispatch)):
        c = Cases()
        module.add_cases(c)
        outputs[os.path.join(HERE, family + "_cases.txt")] = c.text()
    outputs[os.path.join(HERE, "model.txt")] = model_golden.render()
    return write_or_check(__doc__, outputs)


if __name__ == "__main__":
    sys.exit(main())
