"""The ``bao`` command line.

Usage: ``bao COMMAND ...``; ``bao --help`` lists the commands. Every command
reports bad input as a one-line ``bao: error: ...`` message on stderr with
exit status 2 and never prints a traceback for it. Output piped into a reader that
stops early (``bao ... | head``) ends the command quietly, with status 141.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from webui.commands import COMMAND_MODULES


class CommandError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bao",
        description="Camera companion for Bao la Kiswahili.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        qualified = f"webui.commands.{name}"
        try:
            module = importlib.import_module(qualified)
        except ModuleNotFoundError as exc:
            if exc.name == qualified:  # that part is not installed in this build
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
    except BrokenPipeError:
        # the reader went away (``bao ... | head``): stop quietly, as Unix tools do, and
        # send what is still buffered nowhere, so that the exit's flush does not fail too
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a tool killed by it
    except (CommandError, ValueError, OSError) as exc:
        # ValueError covers the engine's notation/position errors and bad JSON;
        # OSError covers unreadable files. Both are the user's input, not a bug.
        print(f"bao: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return int(status or 0)


if __name__ == "__main__":
    # Run as ``python -m webui.cli``, this file is the module __main__, and its
    # CommandError is a class apart from the webui.cli.CommandError that the commands
    # import and raise: the main of webui.cli itself is the one that catches theirs.
    from webui.cli import main as cli_main

    sys.exit(cli_main())
