"""Shared pytest configuration."""

from __future__ import annotations


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden/*/expected.py and report.txt from the tool's current output (review the diff afterwards)",
    )
