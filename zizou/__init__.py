"""zizou: a terminal coding agent."""

import logging

__version__ = "0.1.0"
__all__ = ["__version__"]

# zizou logs through `logging` under "zizou"; the debug log shows its records. With no debug
# log, nothing is printed: stderr is the full-screen app's, or a script's to parse.
logging.getLogger(__name__).addHandler(logging.NullHandler())
