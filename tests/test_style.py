"""Rewritten code in the project's style: the formatters find nothing to change in it.

The rewritten statements are laid out as black lays them out (codemod/wrap.py), so a
file that black, ruff's formatter and ruff's E501 accepted before a run still passes
them after it.  These tests run the real tools (test dependencies) over the golden
outputs and over generated modules; they also cover where the style comes from
(pyproject.toml, ruff.toml) and the ``--formatter`` option.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from codemod.api import transform_source
from codemod.cli import main
from codemod.config import ConfigError, load_style
from codemod.fileio import encode_check, read_source
from codemod.wrap import Style, dominant_quote, layout_statement

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_golden  # noqa: E402  (the golden harness: how a case is transformed)

BLACK = [sys.executable, "-m", "black"]
RUFF = [sys.executable, "-m", "ruff"]


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=str(cwd), capture_output=True, text=True, timeout=300)


def _black_rejects(files: list[Path], cwd: Path, line_length: int = 88, single_quotes: bool = False) -> set[str]:
    """Names of the files `black --check` would reformat."""
    if not files:
        return set()
    options = ["--check", "--line-length", str(line_length)] + (["--skip-string-normalization"] if single_quotes else [])
    completed = _run([*BLACK, *options, *map(str, files)], cwd)
    assert completed.returncode in (0, 1), completed.stderr
    return {Path(m).name for m in re.findall(r"^would reformat (.+)$", completed.stderr, re.M)}


def _ruff_format_rejects(files: list[Path], cwd: Path, line_length: int = 88, quote: str = "double") -> set[str]:
    if not files:
        return set()
    options = ["format", "--check", "--isolated", "--line-length", str(line_length), "--config", f"format.quote-style='{quote}'"]
    completed = _run([*RUFF, *options, *map(str, files)], cwd)
    assert completed.returncode in (0, 1, 2), completed.stderr  # 2: a file it cannot read (not UTF-8)
    output = completed.stdout + completed.stderr
    return {Path(m).name for m in re.findall(r"^(?:Would reformat: |\s*--> )(.+?)(?::\d+:\d+)?$", output, re.M)}


def _e501_rejects(files: list[Path], cwd: Path, line_length: int = 88) -> set[str]:
    if not files:
        return set()
    options = ["check", "--isolated", "--select", "E501", "--line-length", str(line_length), "--output-format", "concise"]
    completed = _run([*RUFF, *options, *map(str, files)], cwd)
    assert completed.returncode in (0, 1), completed.stderr
    return {Path(m).name for m in re.findall(r"^(.+?):\d+:\d+: E(?:501|902)", completed.stdout, re.M)}


# -- the golden outputs ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def golden_outputs(tmp_path_factory) -> tuple[Path, list[str]]:
    """Each golden case that a run changes (at the default style), input and output side by side."""
    work = tmp_path_factory.mktemp("golden_style")
    names = []
    for case in test_golden.CASES:
        if (case / "pyproject.toml").exists():
            continue  # its own line length: checked in test_golden_case_with_its_own_line_length
        source, result = test_golden._transform(case, "input.py")
        if result.code == source.text:
            continue
        (work / f"{case.name}_in.py").write_bytes(source.raw)
        (work / f"{case.name}_out.py").write_bytes(encode_check(source, result.code))
        names.append(case.name)
    return work, names


@pytest.mark.slow
def test_golden_outputs_pass_black_where_the_inputs_did(golden_outputs):
    work, names = golden_outputs
    rejected_inputs = _black_rejects([work / f"{n}_in.py" for n in names], work)
    clean = [n for n in names if f"{n}_in.py" not in rejected_inputs]
    assert len(clean) >= 20, "too few black-clean golden cases for this test to mean anything"
    assert _black_rejects([work / f"{n}_out.py" for n in clean], work) == set()


@pytest.mark.slow
def test_golden_outputs_pass_ruff_where_the_inputs_did(golden_outputs):
    work, names = golden_outputs
    inputs = [work / f"{n}_in.py" for n in names]
    # "Already formatted": both formatters accept the input as it is.
    rejected = _black_rejects(inputs, work) | _ruff_format_rejects(inputs, work)
    formatted = [n for n in names if f"{n}_in.py" not in rejected]
    assert len(formatted) >= 15
    outputs = [work / f"{n}_out.py" for n in formatted]
    assert _ruff_format_rejects(outputs, work) == set()
    short = [n for n in formatted if f"{n}_in.py" not in _e501_rejects(inputs, work)]
    assert len(short) >= 10
    assert _e501_rejects([work / f"{n}_out.py" for n in short], work) == set()


def test_golden_case_with_its_own_line_length(tmp_path):
    case = test_golden.GOLDEN / "format_line_length_from_pyproject"
    assert load_style(case).line_length == 100
    source, result = test_golden._transform(case, "input.py")
    lines = result.code.splitlines()
    assert max(len(line) for line in lines) > 88  # uses the room it has...
    assert max(len(line) for line in lines) <= 100  # ...and no more
    out = tmp_path / "out.py"
    out.write_text(result.code, encoding="utf-8")
    assert _black_rejects([out], tmp_path, line_length=100) == set()
    assert _black_rejects([out], tmp_path, line_length=88) == {"out.py"}


# -- generated modules: the layout agrees with black and ruff ------------------------------------

_VALUES = [
    "torch.zeros({n})",
    "torch.arange(0, {n}, 2).float() / {n}",
    "torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0])",
    "torch.ones({n}, {n}, dtype=torch.float32)",
    "torch.tril(torch.ones({n}, {n}))",
    "torch.randn({n}, {n}) * config.initializer_range",
    "torch.tensor([1, 2, 3,])",
    "torch.tensor(\n[1, 2],  # values\ndtype=torch.long)",
    "torch.full(({n}, {n}), fill_value=float('-inf'))",
    "1.0 / (10000 ** (torch.arange(0, {n}, 2).float() / {n}))",
    "torch.ones({n}) if config.use_ones_for_the_initial_state else torch.zeros({n})",
    "torch.tensor([i * i for i in range({n}) if i % 2 == 0 and i not in config.skipped])",
    "torch.ones({n}).to(config.device).float().contiguous().view(-1, {n})",
    "torch.tensor({{'a': 1, 'b': 2}}[config.key_name_for_the_lookup], dtype=torch.float64)",
    "torch.tensor(\n# a comment of its own\n[1, 2], dtype=torch.long)",
    "torch.eye({n})[None, :, :].expand(config.batch_size, -1, -1).clone()",
    "torch.ones({n}, requires_grad=True)",
    "-torch.ones({n}) + torch.zeros({n}) - torch.full(({n},), 2.0) * torch.ones({n})",
    "torch.tensor(list(map(lambda v, w: v * w + config.offset_value, range({n}), range({n}))))",
    "torch.zeros({n})  # a comment on the value",
]
_SIZES = ["n", "config.hidden_size", "config.maximum_sequence_length_of_the_model", "8"]
_NAMES = ["x", "table", "inverse_frequencies_of_the_rotary_embedding", "position_ids", "a_rather_long_buffer_name"]


def _generated_module(rng: random.Random, single_quotes: bool) -> str:
    body = ["def __init__(self, config, n=8):", "    super().__init__()"]
    indent = "    "
    for level in range(rng.randrange(4)):
        body.append(f"{indent}if config.enabled_{level}:")
        indent += "    "
    for k in range(5):
        value = rng.choice(_VALUES).format(n=rng.choice(_SIZES)).replace("\n", "\n" + indent + "    ")
        comment = "" if "#" in value or rng.random() < 0.75 else "  # a comment that is a little long"
        body.append(f"{indent}self.{rng.choice(_NAMES)}{k} = {value}{comment}")
    text = "import torch\nimport torch.nn as nn\n\n\nclass M(nn.Module):\n" + textwrap.indent("\n".join(body), "    ") + "\n"
    return text.replace('"', "'") if single_quotes else text


# Ruff's formatter follows black except in corners; one shows at 60 columns and deep
# indentation: for `self.x = nn.Parameter(short)` too long for its line, black splits
# inside the call's brackets (as this layout does) where ruff puts the whole value in
# new parentheses.  So ruff is checked at the usual widths.
@pytest.mark.parametrize(
    "tool, line_length",
    [("black", 60), ("black", 79), ("black", 88), ("black", 120), ("ruff", 79), ("ruff", 88), ("ruff", 120)],
)
@pytest.mark.slow
def test_generated_modules_stay_formatted(tmp_path, line_length, tool):
    rng = random.Random(f"{tool}{line_length}")
    inputs = []
    for number in range(12):
        single = number % 3 == 0
        path = tmp_path / f"m{number}{'_single' if single else ''}.py"
        path.write_text(_generated_module(rng, single), encoding="utf-8")
        inputs.append(path)
    for single in (False, True):
        group = [p for p in inputs if ("_single" in p.name) == single]
        if tool == "black":
            options = ["--line-length", str(line_length)] + (["--skip-string-normalization"] if single else [])
            completed = _run([*BLACK, "-q", *options, *map(str, group)], tmp_path)
        else:
            quote = "single" if single else "double"
            options = ["--isolated", "--line-length", str(line_length), "--config", f"format.quote-style='{quote}'"]
            completed = _run([*RUFF, "format", "-q", *options, *map(str, group)], tmp_path)
        assert completed.returncode == 0, completed.stderr
    outputs = []
    for path in inputs:
        text = path.read_text(encoding="utf-8")
        quote = "'" if ("_single" in path.name and tool == "ruff") else None
        result = transform_source(text, path=path.name, style=Style(line_length=line_length, quote=quote))
        assert result.code != text
        out = path.with_name(path.stem + "_out.py")
        out.write_text(result.code, encoding="utf-8")
        outputs.append(out)
    for single in (False, True):
        group = [p for p in outputs if ("_single" in p.name) == single]
        if tool == "black":
            assert _black_rejects(group, tmp_path, line_length, single_quotes=single) == set()
        else:
            assert _ruff_format_rejects(group, tmp_path, line_length, "single" if single else "double") == set()


# -- the layout, case by case --------------------------------------------------------------------


def _module(body: str) -> str:
    return "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def __init__(self, n, config):\n        super().__init__()\n" + textwrap.indent(textwrap.dedent(body), "        ")


def _rewritten_init(body: str, style: Style = Style(), forward: str = "") -> str:
    code = transform_source(_module(body) + textwrap.indent(forward, "    "), path="m.py", style=style).code
    return textwrap.dedent(code.split("super().__init__()\n", 1)[1].split("\n    def forward", 1)[0])


def test_a_call_that_fits_stays_on_one_line():
    assert _rewritten_init("self.table = torch.zeros(n)\n") == 'self.register_buffer("table", torch.zeros(n), persistent=False)\n'


def test_arguments_go_on_one_indented_line_then_one_per_line():
    body = "self.causal = torch.tril(torch.ones(n, n, dtype=torch.bool))\n"
    assert _rewritten_init(body) == (
        "self.register_buffer(\n"
        '    "causal", torch.tril(torch.ones(n, n, dtype=torch.bool)), persistent=False\n'
        ")\n"
    )
    body = "self.position_ids_of_the_model = torch.arange(config.max_len).expand((1, -1))\n"
    assert _rewritten_init(body) == (
        "self.register_buffer(\n"
        '    "position_ids_of_the_model",\n'
        "    torch.arange(config.max_len).expand((1, -1)),\n"
        "    persistent=False,\n"
        ")\n"
    )


def test_no_closing_bracket_hangs_after_exploded_arguments():
    body = """\
    self.mask = torch.tril(  # lower triangle
        torch.ones(config.max_len, config.max_len)
    )
    """
    out = _rewritten_init(body)
    assert "), persistent=False)" not in out
    assert out == (
        "self.register_buffer(\n"
        '    "mask",\n'
        "    torch.tril(torch.ones(config.max_len, config.max_len)),  # lower triangle\n"
        "    persistent=False,\n"
        ")\n"
    )


def test_parameter_wraps_inside_its_own_brackets():
    body = "self.scale_of_the_output = torch.ones(config.hidden_size, config.hidden_size, requires_grad=True)\n"
    forward = "\ndef forward(self, x):\n    return x @ self.scale_of_the_output\n"
    assert _rewritten_init(body, forward=forward) == (
        "self.scale_of_the_output = nn.Parameter(\n"
        "    torch.ones(config.hidden_size, config.hidden_size)\n"
        ")\n"
    )


def test_a_magic_trailing_comma_in_the_value_is_respected():
    body = "self.offsets = torch.tensor([0.0, 0.5,])\n"
    assert _rewritten_init(body) == (
        "self.register_buffer(\n"
        '    "offsets",\n'
        "    torch.tensor(\n"
        "        [\n"
        "            0.0,\n"
        "            0.5,\n"
        "        ]\n"
        "    ),\n"
        "    persistent=False,\n"
        ")\n"
    )
    # ...unless the project turns magic trailing commas off, as black's -C does.
    joined = _rewritten_init(body, Style(magic_trailing_comma=False))
    assert joined == 'self.register_buffer("offsets", torch.tensor([0.0, 0.5]), persistent=False)\n'


def test_a_one_element_tuple_comma_is_not_magic():
    assert _rewritten_init("self.shape = torch.zeros((n,))\n") == 'self.register_buffer("shape", torch.zeros((n,)), persistent=False)\n'


def test_the_statement_comment_counts_in_the_width_and_stays_last():
    body = "self.position_ids = torch.arange(config.max_len)  # the positions, from 0 to max_len - 1\n"
    assert _rewritten_init(body) == (
        "self.register_buffer(\n"
        '    "position_ids", torch.arange(config.max_len), persistent=False\n'
        ")  # the positions, from 0 to max_len - 1\n"
    )


def test_statements_sharing_a_line_are_not_wrapped():
    body = "k = 1; self.a_long_enough_name = torch.arange(config.maximum_sequence_length_of_the_model)\n"
    out = _rewritten_init(body)
    assert out.count("\n") == 1 and "; self.register_buffer(" in out


def test_layout_statement_width_counts_wide_characters():
    code = 'self.register_buffer("表", torch.zeros(n), persistent=False)'
    width = len(code) + 1  # 表 takes two columns
    assert layout_statement(code, 8, None, Style(line_length=8 + width)) == code
    assert layout_statement(code, 8, None, Style(line_length=8 + width - 1)) != code


# -- quotes --------------------------------------------------------------------------------------


def test_single_quote_files_get_single_quoted_names():
    body = "self.mode = 'mean'\nself.table = torch.zeros(n)\n"
    assert "self.register_buffer('table', torch.zeros(n), persistent=False)" in _rewritten_init(body)
    body = "self.mode = \"mean\"\nself.table = torch.zeros(n)\n"
    assert 'self.register_buffer("table", torch.zeros(n), persistent=False)' in _rewritten_init(body)


def test_dominant_quote_ignores_docstrings_and_ties_go_to_double():
    assert dominant_quote('"""Doc."""\nx = \'a\'\n') == "'"
    assert dominant_quote("x = 'a'\ny = \"b\"\n") == '"'
    assert dominant_quote("x = 1\n") == '"'
    assert dominant_quote("x = 1\n", default="'") == "'"


def test_ruff_quote_style_setting_wins(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.ruff.format]\nquote-style = "single"\n')
    style = load_style(tmp_path)
    assert style.quote == "'"
    body = 'self.mode = "mean"\nself.table = torch.zeros(n)\n'
    assert "register_buffer('table'" in _rewritten_init(body, style)


# -- where the style comes from ------------------------------------------------------------------


def test_line_length_from_black(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 100\nskip-magic-trailing-comma = true\n")
    assert load_style(tmp_path) == Style(line_length=100, magic_trailing_comma=False)


def test_line_length_from_ruff_sections(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ruff]\nline-length = 79\n[tool.ruff.format]\nskip-magic-trailing-comma = true\nquote-style = "double"\n'
        "[tool.ruff.lint]\nselect = ['E501']\n"
    )
    assert load_style(tmp_path) == Style(line_length=79, quote='"', magic_trailing_comma=False)


def test_ruff_toml_is_read_before_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 79\n")
    (tmp_path / "ruff.toml").write_text("line-length = 110\n[format]\nquote-style = 'single'\n")
    assert load_style(tmp_path) == Style(line_length=110, quote="'")


def test_both_tools_configured_black_first_unless_ruff_is_the_formatter(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n[tool.ruff]\nline-length = 120\n")
    assert load_style(tmp_path).line_length == 100
    assert load_style(tmp_path, "ruff").line_length == 120
    assert load_style(tmp_path, "black").line_length == 100


def test_no_settings_means_88(tmp_path):
    assert load_style(tmp_path) == Style(line_length=88)
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 72\n")
    assert load_style(tmp_path, "black").line_length == 88  # black's default, where black formats


@pytest.mark.parametrize(
    "text, message",
    [
        ("[tool.black]\nline-length = 0\n", "[tool.black] line-length must be an integer >= 1"),
        ("[tool.ruff]\nline-length = 'long'\n", "[tool.ruff] line-length must be an integer >= 1"),
        ("[tool.ruff.format]\nquote-style = 'backtick'\n", "quote-style must be one of double, single, preserve"),
    ],
)
def test_bad_formatter_settings_are_usage_errors(tmp_path, text, message):
    (tmp_path / "pyproject.toml").write_text(text)
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_style(tmp_path)
    (tmp_path / "m.py").write_text("x = 1\n")
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", str(tmp_path)])
    assert result.exit_code == 2 and message in result.output


def test_cli_wraps_to_the_projects_line_length(tmp_path):
    body = "self.causal = torch.tril(torch.ones(config.max_len, config.max_len))\n"
    (tmp_path / "m.py").write_text(_module(body))
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 120\n")
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert 'self.register_buffer("causal", torch.tril(torch.ones(config.max_len, config.max_len)), persistent=False)\n' in (
        tmp_path / "m.py"
    ).read_text()


# -- --formatter ---------------------------------------------------------------------------------

_UNFORMATTED = "import torch\nfrom torch import nn\nx = {  'a':1 }\n\n\nclass M(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n        self.table = torch.zeros(n)\n"


def _project(tmp_path: Path, config: str = "") -> Path:
    (tmp_path / "pyproject.toml").write_text(config)
    (tmp_path / "m.py").write_text(_UNFORMATTED)
    (tmp_path / "untouched.py").write_text("y = {  'b':2 }\n")
    return tmp_path


@pytest.mark.parametrize("formatter", ["black", "ruff"])
def test_formatter_formats_the_changed_files_only(tmp_path, formatter):
    _project(tmp_path)
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", "--formatter", formatter, str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "m.py").read_text()
    assert 'x = {"a": 1}' in text  # the formatter ran over the whole changed file
    assert 'self.register_buffer("table", torch.zeros(n), persistent=False)' in text
    assert (tmp_path / "untouched.py").read_text() == "y = {  'b':2 }\n"
    check = _black_rejects([tmp_path / "m.py"], tmp_path) if formatter == "black" else _ruff_format_rejects([tmp_path / "m.py"], tmp_path)
    assert check == set()


def test_formatter_from_config_and_the_dry_run_diff_shows_formatted_output(tmp_path):
    _project(tmp_path, '[tool.codemod]\nformatter = "ruff"\n')
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", "--dry-run", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "+x = {\"a\": 1}\n" in result.output
    assert (tmp_path / "m.py").read_text() == _UNFORMATTED  # a dry run writes nothing
    # --formatter none on the command line wins over the config.
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", "--dry-run", "--formatter", "none", str(tmp_path)])
    assert "+x = {" not in result.output and "+        self.register_buffer(" in result.output


def test_missing_formatter_is_a_usage_error(tmp_path, monkeypatch):
    import sysconfig

    _project(tmp_path)
    # Neither on PATH nor next to the tool's interpreter (its module being importable does not count).
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    real_get_path = sysconfig.get_path
    monkeypatch.setattr(sysconfig, "get_path", lambda name, *a, **k: str(tmp_path / "empty") if name == "scripts" else real_get_path(name, *a, **k))
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", "--formatter", "black", str(tmp_path)])
    assert result.exit_code == 2
    assert "formatter 'black' is not installed (pip install black), or use --formatter none" in result.output
    assert (tmp_path / "m.py").read_text() == _UNFORMATTED  # nothing done


def test_formatter_failure_keeps_the_rewrite_and_reports(tmp_path, monkeypatch):
    import codemod.formatter

    _project(tmp_path)
    failing = [sys.executable, "-c", "import sys; sys.stderr.write('error: cannot format -: boom\\n'); sys.exit(123)"]
    monkeypatch.setattr(codemod.formatter, "formatter_command", lambda name: failing)
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", "--formatter", "black", str(tmp_path)])
    assert result.exit_code == 2
    assert "black failed: error: cannot format -: boom; the rewrite is kept as codemod wrote it" in result.stderr
    text = (tmp_path / "m.py").read_text()
    assert "x = {  'a':1 }" in text  # not formatted...
    assert "self.register_buffer('table', torch.zeros(n), persistent=False)" in text  # ...but rewritten (its quotes)


def test_formatter_option_is_a_known_config_key(tmp_path):
    _project(tmp_path, '[tool.codemod]\nformatter = "yapf"\n')
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", str(tmp_path)])
    assert result.exit_code == 2 and 'formatter must be one of black, ruff, none' in result.output


def test_formatter_reads_and_writes_the_files_encoding(tmp_path):
    text = "# -*- coding: latin-1 -*-\nimport torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n        self.\xe9chelle = torch.zeros(n)  # \xe9\n"
    (tmp_path / "m.py").write_bytes(text.encode("latin-1"))
    result = CliRunner().invoke(main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", "--formatter", "black", str(tmp_path)])
    assert result.exit_code == 0, result.output
    source = read_source(tmp_path / "m.py")
    assert source.encoding == "iso-8859-1"
    assert 'self.register_buffer("\xe9chelle", torch.zeros(n), persistent=False)  # \xe9' in source.text


def test_formatter_on_standard_input(tmp_path, monkeypatch):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        main, ["run", "--no-validate", "--unsafe-fixes", "--no-cache", "--formatter", "black", "--stdin-filename", "m.py", "-"], input=_UNFORMATTED
    )
    assert result.exit_code == 0, result.output
    assert 'x = {"a": 1}\n' in result.stdout
    assert 'self.register_buffer("table", torch.zeros(n), persistent=False)\n' in result.stdout
    assert (tmp_path / "m.py").read_text() == _UNFORMATTED


def test_formatter_output_is_compared_as_code_layout_aside():
    from codemod.formatter import _changes_code

    before = 'def f(x):\n    """Doc.\n\n      more"""\n    del (x, y)\n    return {  "a":1 }\n'
    after = 'def f(x):\n    """Doc.\n\n    more"""\n    del x, y\n    return {"a": 1}\n'
    assert _changes_code(before, after) is None
    assert _changes_code(before, after.replace('"a"', '"b"')) == "it parses to different code than it was given"
    assert _changes_code(before, after + "import os\n") == "it parses to different code than it was given"
    assert _changes_code(before, "") == "it parses to different code than it was given"
    assert _changes_code(before, "def f(:\n") == "it does not parse"
