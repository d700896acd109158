"""The `codemod` command line: option parsing and printing only; the work is in runner/api."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import click
from click.core import ParameterSource

from codemod import __version__
from codemod.config import OUTPUT_FORMATS, ConfigError, check_device, check_timeout, find_project_root, load_config, load_style
from codemod.discovery import display_path
from codemod.ftypes import plural
from codemod.report import printable

EXIT_OK, EXIT_PENDING, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command stopped by Ctrl-C

RUN_HELP = """Rewrite raw tensor attributes of nn.Module constructors into
register_buffer(...) or nn.Parameter(...), in place.

PATHS are files or directories (walked recursively; .gitignore, virtual
environments, build and cache folders are skipped), or '-' to read the
source from standard input and write the rewritten source to standard
output (with --stdin-filename naming the file it stands for).

Every rewrite is validated before it is written, by importing and running
the original and the rewritten classes in subprocesses: validation EXECUTES
THE REPOSITORY'S CODE. Use --no-validate for a purely static run; without
validation (--no-validate, '-', or torch not installed) only statically safe
rewrites are written unless --unsafe-fixes is given.

Options may also be set in [tool.codemod] of the project's pyproject.toml;
command-line flags win.

Run it as `codemod` or `python -P -m codemod`: a plain `python -m codemod`
started in a repository that has its own codemod.py or codemod/ runs that
repository's module instead of this tool.

\b
Exit codes:
  0    success, or nothing pending
  1    rewrites pending: with --check, any rewrite not yet in the files; when
       writing, rewrites held back (unless --exit-zero)
  2    usage error, or a file that could not be processed (the rest of the run completes)
  130  interrupted (Ctrl-C); what was left unwritten is said on stderr
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
@click.version_option(__version__, "-V", "--version", prog_name="codemod")
def main() -> None:
    """Turn raw tensor attributes of PyTorch modules into buffers and parameters.

    \b
    codemod run PATHS...        rewrite (see `codemod run --help`)
    codemod rule CODE           explain a rule (`codemod rule --all`: every rule)
    codemod clean               remove this project's caches and records
    codemod record -- COMMAND   record constructor arguments and inputs for validation
    codemod server              the language server for editors (static only)

    Validation runs the original and rewritten models, so it EXECUTES THE
    REPOSITORY'S CODE; `codemod run --no-validate` is purely static.

    Run it as `codemod` or `python -P -m codemod`: a plain `python -m codemod`
    started in a repository that has its own codemod.py or codemod/ runs that
    repository's module instead of this tool.

    \b
    Exit codes of `codemod run`:
      0    success, or nothing pending
      1    rewrites pending (with --check), or held back (when writing)
      2    usage error, or a file that could not be processed
      130  interrupted (Ctrl-C)
    """


@main.command("run", help=RUN_HELP)
@click.argument("paths", nargs=-1, required=True, type=click.Path(), callback=_non_empty_paths)
@click.option("--dry-run/--no-dry-run", "--diff", "dry_run", default=False, help="Print a unified diff of every change; write nothing.")
@click.option("--check/--no-check", default=False, help="Write nothing; exit 1 if any rewrite is pending.")
@click.option("--validate/--no-validate", default=True, help="Run the original and rewritten models before writing (default: on).")
@click.option("--require-validated/--no-require-validated", default=False, help="Write only rewrites whose validation passed.")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=False,
              help="Also write rewrites that failed validation, errored, timed out, changed the checkpoint format, "
                   "or could not be proven by a forward and are not statically safe, and without validation "
                   "rewrites that are not statically safe (by default they are held back).")
@click.option("--allow-new-keys/--no-allow-new-keys", default=False,
              help="Also write rewrites whose only difference is new state_dict keys (new persistent buffers or "
                   "parameters: checkpoints saved before them load only with strict=False); held back otherwise.")
@click.option("--report", "report_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              metavar="FILE.md", help="Also write a Markdown summary of the run and its verdicts (for a pull request).")
@click.option("--persistent", type=click.Choice(["never", "state"]), default="never", show_default=True,
              help="never: every buffer persistent=False (no new checkpoint key); state: random initialisations and "
                   "state that training updates are persistent (checkpoints saved before lack their keys).")
@click.option("--select", "select", multiple=True, metavar="CODES",
              help="Only these rule codes or prefixes (BUF1, BUF101; repeatable or comma-separated).")
@click.option("--ignore", "ignore", multiple=True, metavar="CODES",
              help="Leave out these rule codes or prefixes (repeatable or comma-separated).")
@click.option("--exclude", "excludes", multiple=True, metavar="GLOB", help="Skip matching files or directories (repeatable).")
@click.option("--output-format", "--format", "output_format", type=click.Choice(OUTPUT_FORMATS), default="text",
              show_default=True, help="text, one JSON document, JSON lines, GitHub annotations, or SARIF 2.1.0.")
@click.option("--statistics", is_flag=True, help="Count findings per rule code instead of listing them.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when rewrites are pending under --check.")
@click.option("--stdin-filename", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="With PATH '-': the file the source on standard input stands for (configuration, messages).")
@click.option("--color/--no-color", default=None,
              help="Colour the diff (default: on a terminal, unless NO_COLOR is set; FORCE_COLOR forces it).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Parallel jobs (default: the number of CPUs).")
@click.option("--cache/--no-cache", "use_cache", default=True, help="Reuse results for unchanged files (default: on).")
@click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Where the result cache lives (default: $CODEMOD_CACHE_DIR, else the user's cache directory; "
                   "never inside the repository unless asked).")
@click.option("--follow-symlinks", is_flag=True,
              help="Take PATHS that are symlinks, pass through one, or resolve outside the project root (refused "
                   "otherwise); directory walks never follow symlinks.")
@click.option("--quiet/--no-quiet", "-q", default=False,
              help="Print the findings (and the diff under --dry-run) and errors only: no summary, notes or details.")
@click.option("--silent", "-s", is_flag=True, help="Print nothing (the exit code still tells); implies --quiet.")
@click.option("--verbose", "-v", is_flag=True, help="Say on stderr where settings come from and what the run does.")
@click.option("--show-files", is_flag=True, help="List the files that would be analysed, then exit.")
@click.option("--show-settings", is_flag=True, help="Print the resolved settings, then exit.")
@click.option("--device", default="auto", show_default=True, callback=lambda ctx, param, value: _checked(check_device, param, value),
              help="Validation device: auto, cpu, meta, cuda or cuda:N.")
@click.option("--examples", type=click.Path(path_type=Path, dir_okay=False, exists=True), default=None,
              help="Examples file declaring how to build classes (default: codemod_examples.py at the root).")
@click.option("--timeout", type=float, default=60.0, show_default=True, callback=lambda ctx, param, value: _checked(check_timeout, param, value),
              help="Seconds allowed to validate one class.")
@click.option("--formatter", type=click.Choice(["black", "ruff", "none"]), default=None,
              help="Run the project's formatter over the files that change (default: none; the rewritten "
                   "statements are always wrapped to the project's line length).")
@click.option("--python", "python", default=None, metavar="PATH",
              help="Interpreter (or virtual environment) the validation workers run under "
                   "(default: the active virtual environment, else .venv in the project, else this one).")
@click.option("--parse-all/--no-parse-all", default=False,
              help="Parse every file in full (slower): also reports syntax errors in files that cannot hold "
                   "a rewrite, which are otherwise never parsed.")
@click.pass_context
def run_command(ctx: click.Context, paths: tuple[Path, ...], **flags) -> None:
    from codemod.runner import Interrupted

    try:
        _run_command(ctx, paths, flags)
    except Interrupted as stopped:
        if not flags["silent"]:
            click.echo(f"codemod: {stopped.message()}", err=True)
        _exit_interrupted(ctx)
    except KeyboardInterrupt:
        if not flags["silent"]:
            click.echo("codemod: interrupted; nothing was written", err=True)
        _exit_interrupted(ctx)


# Set by entry.main: this process is the command itself (not a test's CliRunner), and may end
# with os._exit.
OWNS_PROCESS = False


def _exit_interrupted(ctx: click.Context) -> None:
    """End a run stopped by Ctrl-C with status 130.  The interpreter would otherwise end it by
    SIGINT itself (status -2) when the interrupt landed inside code run through its C API (an
    import of a compiled module): CPython then re-raises the signal at exit, however the
    KeyboardInterrupt was handled.  So the exit handlers run here, and the process ends."""
    import atexit
    import signal

    if not OWNS_PROCESS:
        ctx.exit(EXIT_INTERRUPTED)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # nothing left to interrupt
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    atexit._run_exitfuncs()
    os._exit(EXIT_INTERRUPTED)


def _run_command(ctx: click.Context, paths: tuple[Path, ...], flags: dict) -> None:
    from codemod.runner import RunOptions, files_to_analyse, run

    stdin = any(str(p) == "-" for p in paths)
    if stdin and len(paths) > 1:
        raise click.UsageError("'-' (standard input) cannot be combined with other paths")
    if flags["stdin_filename"] is not None and not stdin:
        raise click.UsageError("--stdin-filename names the source read from standard input: pass '-' as the path")
    stdin_path = Path(os.path.abspath(flags["stdin_filename"] or Path.cwd() / "<stdin>"))

    root = find_project_root([stdin_path.parent] if stdin else list(paths))
    try:
        config = load_config(root)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    settings, sources = _merge(ctx, flags, config)
    if settings["silent"]:
        settings["quiet"] = True
    settings["color"] = _colour(ctx, flags, config, sources)
    if settings["statistics"] and settings["output_format"] not in ("text", "json"):
        raise click.UsageError(f"--statistics prints text or json, not {settings['output_format']}")
    if stdin and settings["require_validated"]:
        raise click.UsageError("--require-validated cannot be used with '-': validation does not run on standard input")
    _check_settings(ctx, settings, sources, root, validates=not stdin)
    formatter = settings["formatter"] if settings["formatter"] not in (None, "none") else None
    try:
        style = load_style(root, formatter)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    if formatter is not None:
        from codemod.formatter import FormatterError, formatter_command

        try:
            formatter_command(formatter)
        except FormatterError as exc:
            raise click.UsageError(str(exc)) from None
    write = not (settings["dry_run"] or settings["check"])
    options = RunOptions(
        persistent=settings["persistent"],
        write=write,
        validate=settings["validate"],
        require_validated=settings["require_validated"],
        unsafe_fixes=settings["unsafe_fixes"],
        allow_new_keys=settings["allow_new_keys"],
        excludes=tuple(settings["exclude"]),
        jobs=settings["jobs"],
        use_cache=settings["use_cache"],
        device=settings["device"],
        examples=settings["examples"],
        timeout=settings["timeout"],
        root=root,
        prefilter=not settings["parse_all"],
        selection=settings["selection"],
        cache_dir=flags["cache_dir"],
        follow_symlinks=flags["follow_symlinks"],
        style=style,
        formatter=formatter,
        python=str(settings["python"]) if settings["python"] else None,
    )
    config_file = root / "pyproject.toml"
    if settings["show_settings"]:
        for line in _settings_lines(root, config_file if config else None, settings, sources):
            click.echo(line)
        ctx.exit(EXIT_OK)
    if settings["show_files"]:
        if stdin:
            click.echo(printable(display_path(stdin_path)) if flags["stdin_filename"] else "-")
            ctx.exit(EXIT_OK)
        found = files_to_analyse(paths, options)
        for path in found.files:
            click.echo(printable(display_path(path)))
        for shown, message in found.errors:
            click.echo(f"{printable(shown)}: error: {message}", err=True)
        if not found.files:
            _warn_no_files(paths)
        ctx.exit(EXIT_ERROR if found.errors else EXIT_OK)

    verbose = _Verbose(settings["verbose"])
    verbose(f"project root: {printable(str(root))}")
    verbose(f"configuration: {printable(str(config_file))} [tool.codemod]" if config else "configuration: none ([tool.codemod] not found)")
    if stdin:
        verbose(f"reading standard input as {display_path(stdin_path)}" if flags["stdin_filename"] else "reading standard input")
        verbose("validation: not run for standard input (it imports the project's files from disk)")
        _run_stdin(ctx, stdin_path, display_path(stdin_path) if flags["stdin_filename"] else "-", options, settings)
        return
    if settings["validate"]:
        verbose(f"validation: on, device {settings['device']}, {settings['timeout']:g} s per class (runs the project's code)")
    else:
        verbose("validation: off")
    if not settings["selection"].is_default:
        verbose(f"rules: select {', '.join(settings['selection'].select or ('all',))}; ignore {', '.join(settings['selection'].ignore) or 'none'}")

    on_terminal = not settings["quiet"] and sys.stderr.isatty()
    progress = _progress_bar() if on_terminal else None
    if on_terminal:
        options.validation_progress = _progress_bar(unit="classes validated", minimum=1, every=1)
    report = run(paths, options, progress=progress)
    for bar in (progress, options.validation_progress):
        if bar is not None:
            bar(None, None)
    verbose(f"{plural(report.summary.files_scanned, 'file')} analysed in {verbose.elapsed():.2f} s")
    if report.summary.files_scanned == 0 and not settings["quiet"]:
        _warn_no_files(paths)
    _print(report, settings)
    if flags["report_path"] is not None:
        from codemod.report import markdown_report

        try:
            flags["report_path"].write_text(markdown_report(report.files, report.errors, report.summary), "utf-8")
        except OSError as exc:
            if not settings["silent"]:
                click.echo(f"{flags['report_path']}: error: cannot write the report: {exc}", err=True)
            ctx.exit(EXIT_ERROR)
    ctx.exit(_exit_code(report, settings))


def _exit_code(report, settings: dict) -> int:
    """2 on errors; 1 while rewrites are pending: under --check any rewrite not yet in the
    files, when writing the rewrites held back (as `ruff check --fix` exits 1 while
    violations remain); a dry run shows the diff and exits 0 (as `black --diff`)."""
    if report.has_errors:
        return EXIT_ERROR
    if settings["exit_zero"]:
        return EXIT_OK
    if settings["check"]:
        return EXIT_PENDING if report.pending else EXIT_OK
    if settings["dry_run"]:
        return EXIT_OK
    return EXIT_PENDING if report.held_back else EXIT_OK


def _run_stdin(ctx: click.Context, path: Path, shown: str, options, settings: dict) -> None:
    """`codemod run -`: the rewritten source goes to stdout (the report to stderr); with
    --check or --dry-run, stdout carries the report as for files and nothing else."""
    from codemod.fileio import SourceError, decode_source, encode_check
    from codemod.runner import run_source

    raw = sys.stdin.buffer.read()
    fixing = not (settings["dry_run"] or settings["check"])
    sys.stdout.flush()
    out = sys.stdout.buffer
    try:
        source = decode_source(raw, path)
    except SourceError as exc:
        if not settings["silent"]:
            click.echo(f"{shown}: error: {exc}", err=True)
        if fixing:
            out.write(raw)  # the input, untouched: a pipe never loses the user's text
            out.flush()
        ctx.exit(EXIT_ERROR)
    report = run_source(source.text, path, shown, options)
    result = report.files[0]
    if fixing:
        text = result.rewritten if result.changed and result.error is None else source.text
        try:
            data = encode_check(source, text)
        except SourceError as exc:
            result.error, data = f"not rewritten: {exc}", raw
        out.write(data)
        out.flush()
    _print(report, settings, to_stderr=fixing)
    ctx.exit(_exit_code(report, settings))


def _warn_no_files(paths) -> None:
    shown = ", ".join(printable(str(p)) for p in paths)
    click.echo(f"warning: no Python files found under {shown}", err=True)


class _Verbose:
    """-v: one line per fact on stderr."""

    def __init__(self, on: bool):
        import time

        self.on = on
        self._started = time.perf_counter()

    def __call__(self, line: str) -> None:
        if self.on:
            click.echo(f"codemod: {line}", err=True)

    def elapsed(self) -> float:
        import time

        return time.perf_counter() - self._started


@main.command("rule")
@click.argument("code", required=False)
@click.option("--all", "everything", is_flag=True, help="Explain every rule.")
@click.option("--output-format", "--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text, or JSON (one object, a list with --all).")
def rule_command(code: str | None, everything: bool, output_format: str) -> None:
    """Explain rule CODE (BUF101, ...): what it decides, the torch fact it rests on, an example
    before and after, and how to suppress it.  `codemod rule --all` explains every rule."""
    from codemod import explain
    from codemod.rules.registry import REGISTRY

    if everything == (code is not None):
        raise click.UsageError("name one rule code (codemod rule BUF101), or pass --all")
    try:
        rules = list(REGISTRY.values()) if everything else [explain.find_rule(code)]  # type: ignore[arg-type]
    except explain.UnknownRule as exc:
        raise click.BadParameter(str(exc), param_hint="CODE") from None
    if output_format == "json":
        import json

        documents = [explain.rule_json(rule) for rule in rules]
        click.echo(json.dumps(documents if everything else documents[0], indent=2))
        return
    click.echo("\n\n".join(explain.rule_text(rule) for rule in rules))


@main.command("server")
def server_command() -> None:
    """Run the language server for editors (LSP over standard input and output).

    Static only: it never runs the repository's code.  Diagnostics as files are opened and
    saved, with the findings `codemod run --no-validate FILE` gives (the same project
    configuration, index and cache), and code actions that apply a class's rewrites or add
    `# codemod: ignore[CODE]`.  Needs the `server` extra (pygls).
    """
    try:
        from codemod.server import main as serve
    except ImportError as exc:
        raise click.UsageError(
            f"the language server needs the `server` extra: pip install 'torch-buffer-codemod[server]' ({exc})"
        ) from None
    serve()


@main.command("clean")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="The cache directory to clean (default: as for `codemod run`).")
@click.option("--all", "everything", is_flag=True, help="Remove the cache of every project, not only this one.")
def clean_command(paths: tuple[Path, ...], cache_dir: Path | None, everything: bool) -> None:
    """Remove the caches of the project holding PATHS (default: the current directory): its
    result cache, stored verdicts and the records `codemod record` made.

    Only files this tool created are removed, from directories it marked as its own.
    """
    from codemod.cache import cache_base, clean
    from codemod.validate import verdict_cache
    from codemod.validate.record import clean as clean_records

    base = cache_base(cache_dir)
    root = None if everything else find_project_root(list(paths) or [Path.cwd()])
    from codemod.validate import scratch

    removed = (list(clean(base, root)) + list(verdict_cache.clean(base, root)) + clean_records(base, root)
               + scratch.remove_leftovers())
    for directory in removed:
        click.echo(f"removed {directory}")
    if not removed:
        click.echo(f"no cache to remove under {base}")


@main.command("record", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option("--root", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Repository root (default: the project root of the current directory).")
@click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="The cache directory the records go to (default: as for `codemod run`).")
def record_command(command: tuple[str, ...], root: Path | None, cache_dir: Path | None) -> None:
    """Run COMMAND (after --) and record how it builds and calls each Module class.

    Example: codemod record -- python -m pytest tests/

    Constructor arguments and the first forward inputs of every nn.Module
    class defined in the repository are stored in the user cache directory
    (records/, next to the result cache; never in the repository), where
    `codemod run` finds them to validate rewrites; `codemod clean` removes
    them. This runs COMMAND as is.
    """
    from codemod.validate.record import record

    root = root or find_project_root([Path.cwd()])
    result = record(root, list(command), cwd=Path.cwd(), cache_dir=cache_dir)
    for line in result.summary_lines():
        click.echo(line, err=True)
    sys.exit(result.returncode)


_FLAG_TO_CONFIG = {
    "persistent": "persistent",
    "output_format": "output_format",
    "validate": "validate",
    "require_validated": "require_validated",
    "unsafe_fixes": "unsafe_fixes",
    "allow_new_keys": "allow_new_keys",
    "jobs": "jobs",
    "use_cache": "cache",
    "device": "device",
    "examples": "examples",
    "timeout": "timeout",
    "check": "check",
    "dry_run": "dry_run",
    "quiet": "quiet",
    "parse_all": "parse_all",
    "formatter": "formatter",
    "python": "python",
}
# Options of one invocation, not read from [tool.codemod] (besides exclude, select and
# ignore, which _merge combines, and color, which _colour resolves).
# A repository does not choose where a user's cache goes, nor to follow symlinks out of itself.
PER_INVOCATION = ("statistics", "exit_zero", "stdin_filename", "verbose", "silent", "show_files", "show_settings", "cache_dir",
                  "report_path", "follow_symlinks")


def _check_settings(ctx: click.Context, settings: dict, sources: dict, root: Path, validates: bool) -> None:
    """What only the merged settings can tell; a usage error (exit 2) before any work."""
    examples = settings["examples"]
    if examples is not None and not Path(examples).is_file():
        raise click.UsageError(f"examples file {display_path(Path(examples))} does not exist (examples in [tool.codemod])")
    if validates and settings["validate"] and not settings["show_files"]:
        from codemod.validate.imports import InterpreterError, project_python
        from codemod.validate.preflight import NO_TORCH_NOTE, torch_missing, validation_problem

        try:
            python = project_python(root, settings["python"])
        except InterpreterError as exc:
            if settings["show_settings"]:
                return
            raise click.UsageError(str(exc)) from None
        if torch_missing(python) and not _given(ctx, "validate") and not settings["require_validated"]:
            # The static-only install: validation was not asked for on the command line, so
            # the run goes on statically, writing statically safe rewrites only.
            settings["validate"] = False
            sources["validate"] = "default (torch is not installed)"
            if not (settings["quiet"] or settings["show_settings"]):
                click.echo(f"codemod: note: {NO_TORCH_NOTE}", err=True)
            return
        if settings["show_settings"]:
            return
        problem = validation_problem(settings["device"], python)
        if problem is not None:
            raise click.UsageError(problem)


_CLI, _CONFIG, _DEFAULT = "command line", "pyproject.toml", "default"


def _given(ctx: click.Context, flag: str) -> bool:
    return ctx.get_parameter_source(flag) not in (ParameterSource.DEFAULT, None)


def _merge(ctx: click.Context, flags: dict, config: dict) -> tuple[dict, dict]:
    """Command-line flags win; then [tool.codemod]; then the defaults.

    Returns the settings and, for each, where it came from (for --show-settings).
    """
    from codemod.selection import RuleSelection, UnknownCode, parse_selectors

    settings = dict(flags)
    sources = {flag: _CLI if _given(ctx, flag) else _DEFAULT for flag in flags}
    for flag, key in _FLAG_TO_CONFIG.items():
        if key in config and not _given(ctx, flag):
            settings[flag] = config[key]
            sources[flag] = _CONFIG
    if settings["jobs"] is None:
        settings["jobs"] = os.cpu_count() or 1
    # Excludes add up; a --select replaces the configured one, an --ignore adds to it.
    settings["exclude"] = list(config.get("exclude", ())) + list(flags["excludes"])
    sources["exclude"] = " + ".join(
        name for name, there in ((_CONFIG, "exclude" in config), (_CLI, bool(flags["excludes"]))) if there
    ) or _DEFAULT
    try:
        select = parse_selectors(flags["select"]) if flags["select"] else config.get("select")
        ignore = tuple(config.get("ignore", ())) + tuple(s for s in parse_selectors(flags["ignore"]) if s not in config.get("ignore", ()))
    except UnknownCode as exc:
        raise click.UsageError(str(exc)) from None
    settings["selection"] = RuleSelection(select, ignore)
    sources["select"] = _CLI if flags["select"] else (_CONFIG if "select" in config else _DEFAULT)
    sources["ignore"] = " + ".join(
        name for name, there in ((_CONFIG, "ignore" in config), (_CLI, bool(flags["ignore"]))) if there
    ) or _DEFAULT
    return settings, sources


def _colour(ctx: click.Context, flags: dict, config: dict, sources: dict) -> bool | None:
    """--color/--no-color, then NO_COLOR, then FORCE_COLOR, then [tool.codemod] color;
    None leaves it to click: colour on a terminal only."""
    if _given(ctx, "color"):
        return flags["color"]
    if os.environ.get("NO_COLOR"):
        sources["color"] = "NO_COLOR"
        return False
    if os.environ.get("FORCE_COLOR"):
        sources["color"] = "FORCE_COLOR"
        return True
    if "color" in config:
        sources["color"] = _CONFIG
        return config["color"]
    return None


# [tool.codemod] keys in the order --show-settings prints them (every key of config.KNOWN_KEYS
# but the older spelling `format`), with the setting each one holds.
_SHOWN_SETTINGS = (
    ("persistent", "persistent"),
    ("select", "select"),
    ("ignore", "ignore"),
    ("exclude", "exclude"),
    ("output-format", "output_format"),
    ("validate", "validate"),
    ("require-validated", "require_validated"),
    ("unsafe-fixes", "unsafe_fixes"),
    ("allow-new-keys", "allow_new_keys"),
    ("device", "device"),
    ("examples", "examples"),
    ("timeout", "timeout"),
    ("jobs", "jobs"),
    ("cache", "use_cache"),
    ("color", "color"),
    ("check", "check"),
    ("dry-run", "dry_run"),
    ("quiet", "quiet"),
    ("parse-all", "parse_all"),
    ("formatter", "formatter"),
    ("python", "python"),
)
_SHOWN_PER_INVOCATION = (("statistics", "statistics"), ("exit-zero", "exit_zero"), ("silent", "silent"))


def _settings_lines(root: Path, config_file: Path | None, settings: dict, sources: dict) -> list[str]:
    """The resolved settings as a [tool.codemod] table that the file accepts back as it is:
    every key with its value, and where it came from as a comment.  A setting TOML cannot
    state (colour left to the terminal) is a comment; so are the per-invocation options."""
    import json

    lines = [f"# project root: {printable(str(root))}", f"# configuration: {printable(str(config_file)) if config_file else 'none'}",
             "[tool.codemod]"]
    selection = settings["selection"]
    for key, flag in _SHOWN_SETTINGS:
        source = sources.get(flag, _DEFAULT)
        if key == "select":
            value = list(selection.select) if selection.select is not None else None
        elif key == "ignore":
            value = list(selection.ignore)
        else:
            value = settings[flag]
        if value is None:
            value, note = _resolved_default(key, root, settings)
            if value is None:
                lines.append(f"# {key} not set: {note}")
                continue
            source = f"{_DEFAULT}: {note}"
        if isinstance(value, Path):
            value = _relative_to(value, root)
        lines.append(f"{key} = {json.dumps(value)}  # {source}")
    shown = ", ".join(f"{key} = {json.dumps(settings[flag])}" for key, flag in _SHOWN_PER_INVOCATION)
    lines.append(f"# for this invocation only (not read from [tool.codemod]): {shown}")
    return lines


def _resolved_default(key: str, root: Path, settings: dict) -> tuple[object, str]:
    """(the value a setting left unset takes, what that default is); the value is None when
    TOML cannot state it."""
    if key == "select":
        return None, "every rule"
    if key == "color":
        return None, "on a terminal, unless NO_COLOR is set"
    if key == "formatter":
        return "none", "no formatter"
    if key == "examples":
        from codemod.validate import EXAMPLES_FILE

        found = root / EXAMPLES_FILE
        return (EXAMPLES_FILE, "found at the project root") if found.is_file() else (None, f"{EXAMPLES_FILE} at the project root (none there)")
    if key == "python":
        from codemod.validate.imports import InterpreterError, project_python

        try:
            return project_python(root, None), "the active virtual environment, else .venv in the project, else codemod's"
        except InterpreterError:  # pragma: no cover - only a requested interpreter can be missing
            return None, "codemod's interpreter"
    return None, "default"


def _relative_to(path: Path, root: Path) -> str:
    """A path as [tool.codemod] reads it: relative to the project root when inside it."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return str(absolute)


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


def _print(report, settings: dict, to_stderr: bool = False) -> None:
    """The report in the chosen output format (on stderr when stdout carries source).

    As ruff: --quiet prints the findings (the diff under --dry-run) and errors, but no
    summary, notes, details or hints; --silent prints nothing."""
    if settings["silent"]:
        return
    from codemod import report as fmt

    for warning in report.warnings:  # on stderr in every format: JSON and SARIF on stdout stay data
        click.echo(f"warning: {warning}", err=True)
    output_format = settings["output_format"]
    pending = settings["dry_run"] or settings["check"]  # the summary says "would change"
    quiet = settings["quiet"]
    echo = functools.partial(click.echo, err=to_stderr)
    if settings["statistics"]:
        rows = fmt.statistics(report.findings)
        if output_format == "json":
            import json

            _print_errors(report)
            echo(json.dumps(rows, indent=2))
            return
    if output_format == "json":
        echo(fmt.json_document(report.files, report.errors, report.summary, settings["dry_run"]))
        return
    if output_format == "json-lines":
        for line in fmt.json_lines(report.files, report.errors, settings["dry_run"], report.summary.writing):
            echo(line)
        return
    if output_format == "sarif":
        from codemod.sarif import sarif_document

        echo(sarif_document(report.files, report.errors, report.root))
        return
    if output_format == "github":
        from codemod.github import annotations

        for line in annotations(report.files, report.errors):
            echo(line)
        if not quiet:
            echo(report.summary.line(pending))
        return
    _print_errors(report)
    if settings["dry_run"]:
        for result in report.changed_files:
            echo(fmt.colour_diff(fmt.unified_diff(result)), nl=False, color=settings["color"])
    if settings["statistics"]:
        for line in fmt.statistics_lines(fmt.statistics(report.findings)):
            echo(line)
    else:
        for finding in report.findings:
            echo(fmt.finding_line(finding))
        if not quiet:
            shown: set[tuple[str, str]] = set()
            for finding in report.findings:
                key = (finding.path, finding.class_name)
                if finding.validation is not None and key not in shown:
                    shown.add(key)
                    held = [f for f in report.findings if (f.path, f.class_name) == key and f.held_back]
                    for line in fmt.validation_lines(finding.path, finding.class_name, finding.validation, held):
                        echo(line)
    if quiet:
        return
    if settings["check"]:
        for result in report.changed_files:
            echo(f"would rewrite {printable(result.display_path)}")
    for hint in report.hints:
        echo(f"hint: {hint}")
    echo(report.summary.line(pending))


def _print_errors(report) -> None:
    for shown, message in report.errors:
        click.echo(f"{printable(shown)}: error: {message}", err=True)
    for result in report.files:
        if result.error:
            click.echo(f"{printable(result.display_path)}: error: {result.error}", err=True)


if __name__ == "__main__":
    main()
