"""The semantic core: lanes, validation, the one dot-product function, errors."""

from .dot import DotSpec, DotTrace, dot, dot_arrays, dot_function, trace
from .errors import *  # noqa: F401,F403
from .lanes import lane_values, pack, pack_scalar, unpack
from .values import as_word_array, check_flag, check_int, check_word

__all__ = [
    "DotSpec", "DotTrace", "dot", "dot_arrays", "dot_function", "trace",
    "lane_values", "pack", "pack_scalar", "unpack",
    "as_word_array", "check_flag", "check_int", "check_word",
]
