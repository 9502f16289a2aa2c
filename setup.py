"""Builds the optional compiled solver core; everything else is declared in pyproject.toml.

Without a C compiler the build of the extension is skipped and the pure Python solver is used."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "pyramide._fastsolve",
            ["pyramide/_fastsolve.c"],
            # -fstack-protector-strong: an overflow aborts the process loudly instead of running on.
            extra_compile_args=["-O2", "-fstack-protector-strong"],
            optional=True,
        )
    ]
)
