"""The package-level names of docs/ARCHITECTURE.md resolve to the functions and types.

Regression: the pipeline module used to be named ``vision.recognize``, so once it
was imported, ``from vision import recognize`` returned the module, not the function.
"""

import importlib

import vision.pipeline  # noqa: F401  (imported first on purpose)


def test_recognize_is_the_function_after_the_pipeline_module_is_imported():
    from vision import recognize

    assert callable(recognize)
    assert recognize is importlib.import_module("vision.pipeline").recognize


def test_every_exported_name_resolves():
    import vision

    for name in vision.__all__:
        value = getattr(vision, name)
        assert not isinstance(value, type(vision)), f"vision.{name} is a module"
