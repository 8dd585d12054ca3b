"""The semantic core: lanes, validation, the one dot-product function, errors."""

from .accel import check_environment
from .dot import DotTrace, dot, dot_arrays, dot_function, trace
from .errors import *  # noqa: F401,F403
from .lanes import lane_values, pack, pack_scalar, unpack
from .spec import DotSpec
from .values import as_word_array, check_flag, check_int, check_word

__all__ = [
    "DotSpec",
    "DotTrace",
    "dot",
    "dot_arrays",
    "dot_function",
    "trace",
    "check_environment",
    "lane_values",
    "pack",
    "pack_scalar",
    "unpack",
    "as_word_array",
    "check_flag",
    "check_int",
    "check_word",
]
