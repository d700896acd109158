"""The `codemod` command line: option parsing and printing only; the work is in runner/api."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click
from click.core import ParameterSource

from codemod import __version__
from codemod.config import ConfigError, find_project_root, load_config

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
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--dry-run", "--diff", "dry_run", is_flag=True, help="Print a unified diff of every change; write nothing.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if any rewrite is pending.")
@click.option("--validate/--no-validate", default=True, help="Run the original and rewritten models before writing (default: on).")
@click.option("--require-validated", is_flag=True, help="Write only rewrites whose validation passed.")
@click.option("--persistent", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="auto: persistent=False for constants fully determined by the constructor, persistent otherwise.")
@click.option("--exclude", "excludes", multiple=True, metavar="GLOB", help="Skip matching files or directories (repeatable).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--color/--no-color", default=None, help="Colour the diff (default: when printing to a terminal).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Parallel jobs (default: the number of CPUs).")
@click.option("--cache/--no-cache", "use_cache", default=True, help="Reuse results for unchanged files (default: on).")
@click.option("--quiet", "-q", is_flag=True, help="Print the summary line only.")
@click.option("--device", default="auto", show_default=True, help="Validation device: auto, cpu, meta, cuda or cuda:N.")
@click.option("--examples", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Examples file declaring how to build classes (default: codemod_examples.py at the root).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              help="Seconds allowed to validate one class.")
@click.option("--python", "python", default=None, metavar="PATH",
              help="Interpreter (or virtual environment) the validation workers run under "
                   "(default: the active virtual environment, else .venv in the project, else this one).")
@click.option("--parse-all", is_flag=True,
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
        python=str(settings["python"]) if settings["python"] else None,
    )
    on_terminal = not settings["quiet"] and sys.stderr.isatty()
    progress = _progress_bar() if on_terminal else None
    if on_terminal:
        options.validation_progress = _progress_bar(unit="classes validated", minimum=1, every=1)
    report = run(paths, options, progress=progress)
    for bar in (progress, options.validation_progress):
        if bar is not None:
            bar(None, None)
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

    Example: codemod record -- pytest tests/

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
    "python": "python",
}


def _merge(ctx: click.Context, flags: dict, config: dict) -> dict:
    """Command-line flags win; then [tool.codemod]; then the defaults."""
    settings = dict(flags)
    for flag, key in _FLAG_TO_CONFIG.items():
        if key in config and ctx.get_parameter_source(flag) in (ParameterSource.DEFAULT, None):
            settings[flag] = config[key]
    if settings["jobs"] is None:
        settings["jobs"] = os.cpu_count() or 1
    return settings


def _progress_bar(unit: str = "files", minimum: int = 50, every: int = 25):
    """A one-line bar on stderr; ``show(None, None)`` erases it."""
    import threading

    state = {"shown": False}
    lock = threading.Lock()  # validation reports from worker threads

    def show(done, total):
        with lock:
            if done is None:
                if state["shown"]:
                    click.echo("\r\033[K", nl=False, err=True)
                    state["shown"] = False
                return
            if total < minimum or (done % every and done != total):
                return
            width = 30
            filled = int(width * done / total)
            click.echo(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {unit}", nl=False, err=True)
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
        for hint in report.hints:
            click.echo(f"hint: {hint}")
    click.echo(report.summary.line())


if __name__ == "__main__":
    main()
