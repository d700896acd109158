"""A run as a SARIF 2.1.0 log, the format code-scanning services read.

One run, with every rule of the registry as the driver's rules (its code, name, summary,
the torch fact it rests on as the full description, its explanation as help text and
Markdown, and the README's anchor for the code as helpUri: see explain.py), one result per finding located at its statement, and the files that could not be
processed as tool notifications.  Locations are relative to the project root
(`%SRCROOT%`), as code scanning expects.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

from codemod import __version__
from codemod.ftypes import FileResult
from codemod.report import finding_text

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
ROOT_ID = "%SRCROOT%"


def _artifact(path: Path | None, shown: str, root: Path) -> dict:
    """An artifactLocation: relative to the root when the file is under it."""
    if path is None:
        return {"uri": quote(shown.replace(os.sep, "/"))}
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(root)
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": ROOT_ID}


def _rules() -> tuple[list[dict], dict[str, int]]:
    from codemod import explain
    from codemod.rules.registry import REGISTRY

    rules = []
    for code, rule in REGISTRY.items():
        rules.append(
            {
                "id": code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": explain.fact(rule) or rule.summary},
                "help": {"text": explain.rule_text(rule), "markdown": explain.rule_markdown(rule)},
                "helpUri": explain.rule_url(code),
                "defaultConfiguration": {"level": "warning"},
                "properties": {"kind": explain.kind(rule), "staticallySafe": rule.statically_safe},
            }
        )
    return rules, {code: i for i, code in enumerate(REGISTRY)}


def _notification(message: str, artifact: dict) -> dict:
    """A file that could not be processed (the rest of the run went on)."""
    return {"level": "error", "message": {"text": message}, "locations": [{"physicalLocation": {"artifactLocation": artifact}}]}


def sarif_document(files: Iterable[FileResult], errors: list[tuple[str, str]], root: Path) -> str:
    root = Path(os.path.abspath(root))
    rules, rule_index = _rules()
    results = []
    notifications = []
    for result in files:
        for finding in result.findings:
            record: dict = {
                "level": "warning",
                "message": {"text": finding_text(finding)},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": _artifact(result.path, result.display_path, root),
                            "region": {"startLine": finding.line, "startColumn": finding.column},
                        },
                        "logicalLocations": [
                            {"name": finding.attribute, "fullyQualifiedName": f"{finding.class_name}.{finding.attribute}", "kind": "member"}
                        ],
                    }
                ],
            }
            if finding.code:
                record["ruleId"] = finding.code
                if finding.code in rule_index:
                    record["ruleIndex"] = rule_index[finding.code]
            results.append(record)
        if result.error:
            notifications.append(_notification(result.error, _artifact(result.path, result.display_path, root)))
    for shown, message in errors:
        notifications.append(_notification(message, _artifact(None, shown, root)))
    run = {
        "tool": {"driver": {"name": "codemod", "version": __version__, "semanticVersion": __version__, "rules": rules}},
        "originalUriBaseIds": {ROOT_ID: {"uri": root.as_uri().rstrip("/") + "/"}},
        "results": results,
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
        "columnKind": "unicodeCodePoints",
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2)
