"""zizou: a terminal coding agent.

Nothing is imported here: `zizou --version` imports this package and should cost no more than
Python's own start. The command line gives zizou's logger its silent handler (zizou.cli)."""

__version__ = "0.1.0"
__all__ = ["__version__"]
