"""The `codemod` command line: option parsing and printing only; the work is in runner/api."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click
from click.core import ParameterSource

from codemod import __version__
from codemod.config import ConfigError, check_device, check_timeout, find_project_root, load_config
from codemod.discovery import display_path

EXIT_OK, EXIT_PENDING, EXIT_ERROR = 0, 1, 2

RUN_HELP = """Rewrite raw tensor attributes of nn.Module constructors into
register_buffer(...) or nn.Parameter(...), in place.

PATHS are files or directories (walked recursively; .gitignore, virtual
environments, build and cache folders are skipped).

Every rewrite is validated before it is written, by importing and running
the original and the rewritten classes in subprocesses: validation EXECUTES
THE REPOSITORY'S CODE. Use --no-validate for a purely static run.

Options may also be set in [tool.codemod] of the project's pyproject.toml;
command-line flags win.

\b
Exit codes:
  0  success, or nothing pending
  1  rewrites pending (with --check)
  2  usage error, or a file that could not be processed (the rest of the run completes)
"""


def _checked(check, param, value):
    """A value check of config.py as click's usage error (exit 2)."""
    try:
        return check(value)
    except ValueError as exc:
        raise click.BadParameter(f"{exc} (got {value!r})", param=param) from None


def _non_empty_paths(ctx, param, paths):
    # Checked before becoming Paths: Path("") is ".", the whole directory.
    if any(path == "" for path in paths):
        raise click.BadParameter("an empty path names no file (got '')", param=param)
    return tuple(Path(path) for path in paths)


class _Group(click.Group):
    def main(self, *args, **kwargs):  # map click's usage errors to exit code 2 (its default too)
        return super().main(*args, **kwargs)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="codemod")
def main() -> None:
    """Turn raw tensor attributes of PyTorch modules into buffers and parameters.

    \b
    codemod run PATHS...        rewrite (see `codemod run --help`)
    codemod record -- COMMAND   record constructor arguments and inputs for validation

    Validation runs the original and rewritten models, so it EXECUTES THE
    REPOSITORY'S CODE; `codemod run --no-validate` is purely static.

    \b
    Exit codes of `codemod run`:
      0  success, or nothing pending
      1  rewrites pending (with --check)
      2  usage error, or a file that could not be processed
    """


@main.command("run", help=RUN_HELP)
@click.argument("paths", nargs=-1, required=True, type=click.Path(), callback=_non_empty_paths)
@click.option("--dry-run/--no-dry-run", "--diff", "dry_run", default=False, help="Print a unified diff of every change; write nothing.")
@click.option("--check/--no-check", default=False, help="Write nothing; exit 1 if any rewrite is pending.")
@click.option("--validate/--no-validate", default=True, help="Run the original and rewritten models before writing (default: on).")
@click.option("--require-validated/--no-require-validated", default=False, help="Write only rewrites whose validation passed.")
@click.option("--persistent", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="auto: persistent=False for constants fully determined by the constructor, persistent otherwise.")
@click.option("--exclude", "excludes", multiple=True, metavar="GLOB", help="Skip matching files or directories (repeatable).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--color/--no-color", default=None, help="Colour the diff (default: when printing to a terminal).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Parallel jobs (default: the number of CPUs).")
@click.option("--cache/--no-cache", "use_cache", default=True, help="Reuse results for unchanged files (default: on).")
@click.option("--quiet/--no-quiet", "-q", default=False, help="Print the summary line only.")
@click.option("--device", default="auto", show_default=True, callback=lambda ctx, param, value: _checked(check_device, param, value),
              help="Validation device: auto, cpu, meta, cuda or cuda:N.")
@click.option("--examples", type=click.Path(path_type=Path, dir_okay=False, exists=True), default=None,
              help="Examples file declaring how to build classes (default: codemod_examples.py at the root).")
@click.option("--timeout", type=float, default=60.0, show_default=True, callback=lambda ctx, param, value: _checked(check_timeout, param, value),
              help="Seconds allowed to validate one class.")
@click.option("--parse-all/--no-parse-all", default=False,
              help="Parse every file in full (slower): also reports syntax errors in files that cannot hold "
                   "a rewrite, which are otherwise never parsed.")
@click.pass_context
def run_command(ctx: click.Context, paths: tuple[Path, ...], **flags) -> None:
    from codemod.runner import RunOptions, run

    root = find_project_root(list(paths))
    try:
        config = load_config(root)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    settings = _merge(ctx, flags, config)
    _check_settings(settings)
    write = not (settings["dry_run"] or settings["check"])
    options = RunOptions(
        persistent=settings["persistent"],
        write=write,
        validate=settings["validate"],
        require_validated=settings["require_validated"],
        excludes=tuple(config.get("exclude", ())) + tuple(flags["excludes"]),
        jobs=settings["jobs"],
        use_cache=settings["use_cache"],
        device=settings["device"],
        examples=settings["examples"],
        timeout=settings["timeout"],
        root=root,
        prefilter=not settings["parse_all"],
    )
    progress = _progress_bar() if not settings["quiet"] and sys.stderr.isatty() else None
    report = run(paths, options, progress=progress)
    if progress is not None:
        progress(None, None)
    _print(report, settings)
    if report.has_errors:
        ctx.exit(EXIT_ERROR)
    if settings["check"] and report.changed_files:
        ctx.exit(EXIT_PENDING)
    ctx.exit(EXIT_OK)


@main.command("record", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option("--root", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Repository root (default: the project root of the current directory).")
def record_command(command: tuple[str, ...], root: Path | None) -> None:
    """Run COMMAND (after --) and record how it builds and calls each Module class.

    Example: codemod record -- python -m pytest tests/

    Constructor arguments and the first forward inputs of every nn.Module
    class defined in the repository are stored under .codemod/records/, where
    `codemod run` finds them to validate rewrites. This runs COMMAND as is.
    """
    from codemod.validate.record import record

    root = root or find_project_root([Path.cwd()])
    result = record(root, list(command), cwd=Path.cwd())
    for line in result.summary_lines():
        click.echo(line, err=True)
    sys.exit(result.returncode)


_FLAG_TO_CONFIG = {
    "persistent": "persistent",
    "output_format": "format",
    "validate": "validate",
    "require_validated": "require_validated",
    "jobs": "jobs",
    "use_cache": "cache",
    "device": "device",
    "examples": "examples",
    "timeout": "timeout",
    "color": "color",
    "check": "check",
    "dry_run": "dry_run",
    "quiet": "quiet",
    "parse_all": "parse_all",
}


def _check_settings(settings: dict) -> None:
    """What only the merged settings can tell; a usage error (exit 2) before any work."""
    examples = settings["examples"]
    if examples is not None and not Path(examples).is_file():
        raise click.UsageError(f"examples file {display_path(Path(examples))} does not exist (examples in [tool.codemod])")
    if settings["validate"]:
        from codemod.validate.preflight import validation_problem

        problem = validation_problem(settings["device"])
        if problem is not None:
            raise click.UsageError(problem)


def _merge(ctx: click.Context, flags: dict, config: dict) -> dict:
    """Command-line flags win; then [tool.codemod]; then the defaults."""
    settings = dict(flags)
    for flag, key in _FLAG_TO_CONFIG.items():
        if key in config and ctx.get_parameter_source(flag) in (ParameterSource.DEFAULT, None):
            settings[flag] = config[key]
    if settings["jobs"] is None:
        settings["jobs"] = os.cpu_count() or 1
    return settings


def _progress_bar():
    state = {"shown": False}

    def show(done, total):
        if done is None:
            if state["shown"]:
                click.echo("\r\033[K", nl=False, err=True)
            return
        if total < 50 or (done % 25 and done != total):
            return
        width = 30
        filled = int(width * done / total)
        click.echo(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files", nl=False, err=True)
        state["shown"] = True

    return show


def _print(report, settings) -> None:
    from codemod import report as fmt

    color = settings["color"]
    if settings["output_format"] == "json":
        click.echo(fmt.json_document(report.files, report.errors, report.summary, settings["dry_run"]))
        return
    for shown, message in report.errors:
        click.echo(f"{shown}: error: {message}", err=True)
    for result in report.files:
        if result.error:
            click.echo(f"{result.display_path}: error: {result.error}", err=True)
    if not settings["quiet"]:
        if settings["dry_run"]:
            for result in report.changed_files:
                click.echo(fmt.colour_diff(fmt.unified_diff(result)), nl=False, color=color)
        for finding in report.findings:
            click.echo(fmt.finding_line(finding))
        shown: set[tuple[str, str]] = set()
        for finding in report.findings:
            key = (finding.path, finding.class_name)
            if finding.validation is not None and key not in shown:
                shown.add(key)
                for line in fmt.validation_lines(finding.path, finding.class_name, finding.validation):
                    click.echo(line)
    click.echo(report.summary.line())


if __name__ == "__main__":
    main()
