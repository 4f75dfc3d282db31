"""The application: the Flask web app and the ``bao`` command line.

Keep this module free of heavy imports (Flask, OpenCV, numba): the command
line imports it on every call and must start quickly.
"""
