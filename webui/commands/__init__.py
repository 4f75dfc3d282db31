"""Subcommands of the ``bao`` command line, one module per part of the project.

Each module named in :data:`COMMAND_MODULES` defines ``register(subparsers)``,
which adds its subcommands to the argparse sub-parser collection and sets
``func`` (a callable taking the parsed ``argparse.Namespace`` and returning an
exit status) on each sub-parser. Modules must import heavy libraries (OpenCV,
numba, Flask, bpy) inside their command functions, not at module level, so
that ``bao moves start`` stays fast.
"""

COMMAND_MODULES: tuple[str, ...] = ("rules", "render", "vision", "serve", "hint")
