"""Public home of intdot's exception hierarchy (see :mod:`intdot.core.errors`)."""

from .core.errors import *  # noqa: F401,F403
from .core.errors import __all__  # noqa: F401
