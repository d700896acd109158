# `python pytest_tvstub.py ARGS` = `python -m pytest ARGS` with the torchvision stub of _tvstub.py installed first.
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _tvstub  # noqa: F401

sys.path.insert(0, os.getcwd())
import pytest

sys.exit(pytest.main(sys.argv[1:]))
