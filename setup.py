"""Builds the optional compiled solver core; everything else is declared in pyproject.toml.

Without a C compiler the build of the extension is skipped and the pure Python solver is used."""

import sys

from setuptools import Extension, setup

# GCC and Clang take these; -fstack-protector-strong: an overflow aborts the process instead of running on.
FLAGS = [] if sys.platform == "win32" else ["-O2", "-fstack-protector-strong"]

setup(
    ext_modules=[
        Extension(
            "pyramide._fastsolve",
            ["pyramide/_fastsolve.c"],
            extra_compile_args=FLAGS,
            optional=True,
        )
    ]
)
