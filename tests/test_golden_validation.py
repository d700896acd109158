"""Every golden case is a validation case too: its input.py and expected.py must validate.

For each case with at least one rewrite, the validation engine builds the
classes of ``input.py`` (the original) and of ``expected.py`` (served as the
rewritten text of the same file) and compares them.  The rewrites that are
validated are the tool's own findings for ``input.py``.

All cases are validated in one call over one scratch repository, where each
case is a package of its own:

* ``<case>/input.py`` is the case's input.py (module ``<case>.input``);
* ``<case>/<name>.py`` are the case's ``repo/`` files;
* ``<case>/golden_examples.py`` is the case's examples.py, and the root's
  ``codemod_examples.py`` imports them all.

Imports between these files name the case package (``from masks import x``
becomes ``from <case>.masks import x``, example targets ``input.X`` become
``<case>.input.X``); nothing else of any file changes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from codemod.ftypes import Action, ClassRewrite, Verdict

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"

# Golden classes that the validator cannot build, with the reason.  Every other rewrite
# of every golden case must pass, or change the checkpoint format where it adds a key,
# unless listed below.  Those listed here must be "not validated", never passed, with a
# message that says why.  (case, class) -> what the message must say
CANNOT_BUILD: dict[tuple[str, str], str] = {
    # no import reaches a class defined in a function (the module's same-named class is another)
    ("tensor_constructor_argument_of_a_class_defined_in_a_function", "Operator"):
        "Operator is defined inside the function train(), so no import can build it",
    ("tensor_constructor_argument_of_a_class_defined_in_a_method", "Operator"):
        "Operator is defined inside the function build(), so no import can build it",
}

# Rewrites with a statement in a branch that the constructor arguments used here never
# take: validation cannot prove them, so they are "not validated", never passed.  The
# class's other rewrites must pass.  (case, class) -> the unproven attributes.
# Golden classes whose original mixes devices on meta and whose rewrite still does: an
# attribute the safety rules leave raw on purpose (a helper's first non-tensor binding, an
# exclusive branch) meets moved tensors in forward. (case, class)
# Rewrites whose forward cannot run on meta for a reason of the device's own: no meta kernel
# for the operation (sparse matrix products), where the original fails by mixing devices.
NO_META_KERNELS: list[tuple[str, str]] = [
    ("tensor_legacy_sparse_constructors", "SparseGraph"),  # aten::addmm has no SparseMeta kernel
    # torch.nonzero's size depends on the values, which the meta device does not hold
    ("safety_cpu_data_read_through_a_helper_into_numpy", "Peaks"),
]

STILL_MIXES_AFTER_REWRITE: list[tuple[str, str]] = [
    ("safety_constructor_helper_bindings", "Embedder"),
    ("safety_cpu_data_arithmetic_method_with_a_host_tensor", "Completion"),  # BUF218 keeps M and train_mask raw
    ("report_tuple_of_tensors_from_a_local_lambda", "LSTMClassifier"),  # the reported tuple of states stays raw
    ("ignore_comment", "Pooler"),  # `# codemod: ignore` keeps one raw
    ("safety_complex_tensor_skipped", "Rotary"),  # the complex tables stay raw
    ("safety_not_a_tensor_loaded_or_looked_up", "Normalizer"),  # a value not proven a tensor stays raw
    ("safety_trained_tensor_handed_out_before_rebinding", "Temperature"),  # BUF214 keeps log_alpha raw
    ("safety_scripted_repository_reported", "Scale"),  # BUF226 keeps the index raw in a repository that scripts modules
    ("tensor_constructor_argument_typed_from_calls", "Net"),  # FromNumpy's table stays raw
    ("device_move_kept_read_by_child_module", "GraphNet"),  # the child's own `degree` stays raw
    ("persistent_data_passed_in", "ClassWeights"),  # BUF204 keeps `stats` raw
    ("safety_helper_run_again_reported", "DropConnectLSTM"),  # BUF220 keeps the helper's mask raw
    ("parameter_trained_tensor_handed_to_an_optimizer_elsewhere", "PromptedClassifier"),  # BUF217 keeps temperature raw
    # the embedding's forward_o builds CPU indices (torch.LongTensor(data)) and moves them only to CUDA
    ("safety_cpu_data_read_through_held_module", "Uniform"),
    ("argument_typed_through_a_comprehension_of_tensors", "Moments"),  # the reported moments stay raw
    ("trained_tensor_made_trainable_inside_a_list", "Gate"),  # BUF217 keeps the trained scale raw
    ("report_alias_of_own_buffer", "Detached"),  # the reported alias `frozen` stays raw, and is indexed
]

# `if torch.cuda.is_available():` arms: without a GPU, built again with one reported (the arm
# runs on the CPU under the stand-in); with one, their else arms are never taken.
GPU_ARMS: dict[tuple[str, str], set[str]] = {
    ("device_move_cuda_in_branch", "MaskCache"): {"mask", "eye"},
    ("device_move_cuda_dropped_when_moved_as_a_whole", "Tagger"): {"table"},
    ("tensor_legacy_cuda_typed_tensor_in_branch", "TokenFilter"): {"banned_ids"},
}

BRANCH_NOT_TAKEN: dict[tuple[str, str], set[str]] = {
    **(GPU_ARMS if torch.cuda.is_available() else {}),
    # the arm a type test opens to a tensor argument (`else: self.scale = scale`): built with the default 1.0
    ("branches_exact_type_test_rewritten", "Reservoir"): {"scale"},
}

# Rewrites whose statement ran and whose forward was compared, but where a read of the tensor
# sits in a branch no compared forward ran: not proven.  (case, class) -> those attributes.
READ_NOT_RUN: dict[tuple[str, str], set[str]] = {
    ("persistent_cache_recomputed_outside_init", "Rotary"): {"positions"},  # _grow(), for longer inputs
    # the else arm runs from the second call on, which no forward after a cast is
    ("persistent_starts_empty_replaced_later", "DiverseSearch"): {"overlap"},
}

# Rewrites in arms that the first build does not take and a further build does: proven with
# coverage merged over the builds.  (case, class) -> what the further builds change.
COVERED_BY_MORE_BUILDS: dict[tuple[str, str], str] = {
    **({} if torch.cuda.is_available() else {key: "torch.cuda.is_available() answering True" for key in GPU_ARMS}),
    ("format_one_line_blocks", "Window"): "big=",  # `else: self.taps = ...` with big=True
    ("nested_if_else_for_with_blocks", "Window"): "kind=",  # the elif/else arms of kind="hann"
    # `self.mask = None` (causal=True) and `self.bias = torch.zeros(...)` (use_bias=False)
    ("none_branch_registers_none", "Attention"): "causal=",
}

# Rewrites whose forward no made-up input runs: every other check agrees, no forward ran.
WITHOUT_FORWARD: dict[tuple[str, str], set[str]] = {
    # filled by update(), which a further build calls; only update() reads it again, and
    # validation does not run that method after a cast
    ("report_slot_copied_from_another_slot", "SeamPadder"): {"pending"},
    ("report_slot_cloned_from_another_slot", "RowPadder"): {"next_row"},
    # the class has no forward: popularity() reads the counts, which validation does not run
    ("safety_computed_with_a_kept_raw_tensor", "Factorization"): {"counts"},
    # torch.cdist(x, self.codes[:, None]): x must end in a size-1 dimension
    ("local_first_numpy_linspace_codebook", "Codebook"): {"codes"},
    # the sequence length of the made-up batch (7) is not the table's (2)
    ("persistent_state_cast_or_view_is_not_an_update", "Embedder"): {"freqs", "window", "grid"},
    # read only by methods the training loop calls (enqueue(), record(), sample()), which
    # validation does not run: a forward compared proves nothing about them
    ("persistent_state_updated_together", "MemoryQueue"): {"ptr", "steps"},
    ("persistent_scratch_refilled_or_moved", "NoisyPolicy"): {"noise"},
    ("persistent_running_state_variants", "EMAQuantizer"): {"steps"},
}

# Lazy buffers (BUF107): the rewritten statement registers None, and the attribute holds None
# after construction, so no tensor was compared at that point.
HOLDS_NONE: dict[tuple[str, str], set[str]] = {
    # filled by a setup method that neither construction nor forward calls: never a tensor
    ("lazy_none_then_tensor_in_setup_method", "Sampler"): {"schedule"},
    ("lazy_fresh_tensor_from_parameter", "VarRNNCell"): {"noise_in"},
    ("lazy_fresh_tensor_from_parameter", "Scratch"): {"workspace"},
    ("lazy_tensor_from_a_helper_handed_a_layer_output", "Decoder"): {"k", "v"},
    # kept only when `keep_state` is set, which no constructor argument and no build sets
    ("lazy_state_kept_under_a_flag", "SentenceEncoder"): {"h_last"},
    # filled by a gradient hook, which only a backward pass runs
    ("lazy_gradient_kept_by_a_tensor_hook", "GradCamNet"): {"gradients"},
}

# Lazy slots that a setter method fills (reads.setter_methods): proven by a further build that
# calls it with made-up inputs right after construction, then runs forward (passed). The
# setter named here.
FILLED_BY_SETTER: dict[tuple[str, str], tuple[set[str], str]] = {
    ("lazy_child_attribute_filled_by_a_setup_method", "Standardize"): ({"mean", "std"}, "calibrate"),
}

# Lazy slots (None after construction) that forward fills: compared as the first forward
# left them, and cast after it (passed).
FILLED_BY_FORWARD: dict[tuple[str, str], set[str]] = {
    ("lazy_none_then_tensor_in_forward", "RotaryCache"): {"cos_cached"},
    ("lazy_none_in_a_tuple_assignment", "LoopCache"): {"loop_index", "loop_type"},
    ("lazy_none_in_a_tuple_assignment_set_up_later", "Grid"): {"xx", "yy"},
    ("report_none_then_tuple_of_tensors", "GRUPlain"): {"hidden"},
}

# Golden classes whose forward (with the example inputs) mixes a raw tensor
# attribute with tensors that .to() moves: a parameter, a buffer or the
# inputs.  On the meta device the original fails and the rewritten runs.
# (case, class, the raw attribute left behind)
MIXES_DEVICES: list[tuple[str, str, str]] = [
    # self.adj @ x, a tensor argument typed by its annotation
    ("annotation_parameter_types", "Layer", "adj"),
    # (xyz - self.aabb[0]) * self.inv_aabb_size, computed from a registered buffer
    ("attribute_arithmetic_on_buffer", "Field", "inv_aabb_size"),
    # x @ self.inv, computed from an argument typed from the repository's calls
    ("attribute_arithmetic_on_buffer", "Box", "inv"),
    # torch.mm(self.gso, x), from args.gso typed from repo/train.py
    ("attribute_path_argument_typed_from_calls", "STGCN", "gso"),
    # self.block(x, self.mask): handed to a child module
    ("child_call_argument_typed_from_calls", "Encoder", "mask"),
    # layer(x, self.adj) for the layers of an nn.ModuleList
    ("child_call_in_module_list_loop", "Stack", "adj"),
    # self.inv_freq (cpu) * positions (moved)
    ("annotated_assignment_declared_on_class", "RotaryEmbedding", "inv_freq"),
    # scores.masked_fill(self.mask[:t, :t], ...)
    ("none_branch_registers_none", "Attention", "mask"),
    # torch.cat([self.prompt.expand(...), x])
    ("parameter_requires_grad_method_dropped", "PromptTuning", "prompt"),
    # word embedding + self.pe[:, :T]
    ("ref_embeddings_helper_method", "Embeddings", "pe"),
    # x + self.pe[:, :T]
    ("ref_positional_encoding_multiline", "PositionalEncoding", "pe"),
    # features - self.centers[labels]: the cpu attribute, indexed, meets the inputs
    ("parameter_variable_requires_grad_unwrapped", "CenterLoss", "centers"),
    # self.type_emb(self.type_indices): nn.Embedding weight (moved) indexed by a cpu tensor
    ("ref_typecls_arange_indices", "TypeCls", "type_indices"),
    # self.adj @ self.lin(x): the tensor the child keeps, typed from its call
    ("device_move_kept_when_used_in_init", "GraphConv", "adj"),
    ("tensor_constructor_argument_typed_from_calls", "GraphConv", "adj"),
    # forwards run with inputs made up from their first layers (zero-setup validation)
    ("format_crlf_line_endings", "Scale", "scale"),
    ("format_multiline_value_with_comments", "Rotary", "inv_freq"),
    ("import_style_from_torch_import_nn", "CausalSelfAttention", "causal_mask"),
    ("import_style_from_torch_nn_import_module_alias", "Normalizer", "shift"),
    ("import_style_nn_sequential_base", "ScaledMLP", "input_scale"),
    ("import_style_only_import_torch_parameter_spelling", "Gate", "offsets"),
    ("import_style_repository_base_in_other_file", "GatedLayer", "gate"),
    ("import_style_repository_module_base", "MixedBlock", "mixing"),
    ("import_style_repository_module_base", "ShiftedMixedBlock", "mixing"),
    ("move_after_super", "Window", "taps"),
    ("parameter_adds_from_torch_import_nn", "Temperature", "log_temperature"),
    ("parameter_later_requires_grad_true", "LearnedMix", "alpha"),
    ("persistent_derived_from_config_and_files", "GraphLayer", "adj"),
    ("persistent_scratch_refilled_or_moved", "NoisyPolicy", "scale"),
    ("safety_off_device_collate_only", "Tagger", "class_ids"),
    ("skip_class_attribute_or_method_same_name", "Head", "logit_scale"),
    # self.proj(x) * self.scales: inputs made up from proj (Linear(4, ...))
    ("device_move_dropped", "AnchorHead", "scales"),
    # self.lin(x) @ self.mask (the kept or dropped move alike)
    ("branches_device_move_kept_in_every_branch", "Encoder", "mask"),
    ("device_move_kept_model_built_on_device", "Decoder", "mask"),
    # self.proj(x) * self.cos_cached[:seq_len], the lazily filled cache
    ("lazy_none_then_tensor_in_forward", "RotaryCache", "cos_cached"),
    # self.rnn(x, self.hidden): the recurrent state the first forward left on cpu
    ("report_none_then_tuple_of_tensors", "GRUPlain", "hidden"),
    # self.encoder(x) @ self.queue.t()
    ("persistent_state_updated_together", "MemoryQueue", "queue"),
    # self.proj(x - self.running_mean)
    ("persistent_state_random_and_running_state", "Whitening", "running_mean"),
    # self.emb(self.buckets[:l, :l])
    ("tensor_from_other_self_attribute", "RelativePosition", "buckets"),
    # x @ self.rotation
    ("tensor_module_level_helper_function", "Decoder", "rotation"),
]
# Not listed: tensor_functional_ops.LabelSmoother.  Its forward starts with
# self.targets[labels], a cpu attribute indexed by the moved labels; aten.index
# is allowed to mix devices on meta and returns a cpu tensor there, so the rest
# of the forward runs on cpu tensors only and the original is not seen to fail.


def _report_has_rewrite(case: Path) -> bool:
    report = case / "report.txt"
    return report.is_file() and any("->" in line for line in report.read_text(encoding="utf-8").splitlines())


# A case whose input raises as written (input_raises.txt) has no original to compare with.
CASES = sorted(
    p
    for p in GOLDEN.iterdir()
    if p.is_dir() and (p / "input.py").is_file() and _report_has_rewrite(p) and not (p / "input_raises.txt").exists()
)
CASE_IDS = [p.name for p in CASES]


def _repo_modules(case: Path) -> dict[str, Path]:
    """Dotted module name -> file, for the case's ``repo/`` folder."""
    repo = case / "repo"
    found: dict[str, Path] = {}
    if repo.is_dir():
        for path in sorted(repo.rglob("*.py")):
            parts = list(path.relative_to(repo).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if parts:
                found[".".join(parts)] = path
    return found


def _scope_imports(text: str, package: str, modules: set[str]) -> str:
    """Make imports of the case's own top-level modules name the case package."""
    if not modules:
        return text
    names = "|".join(re.escape(m) for m in sorted(modules, key=len, reverse=True))
    text = re.sub(
        rf"^(?P<indent>[ \t]*)from[ \t]+(?P<mod>(?:{names})(?:\.[\w.]+)?)[ \t]+import\b",
        lambda m: f"{m['indent']}from {package}.{m['mod']} import",
        text,
        flags=re.M,
    )

    def plain_import(match: re.Match) -> str:
        alias = match["alias"] or match["mod"].split(".")[0]
        return f"{match['indent']}import {package}.{match['mod']} as {alias}"

    return re.sub(
        rf"^(?P<indent>[ \t]*)import[ \t]+(?P<mod>(?:{names})(?:\.[\w.]+)?)(?:[ \t]+as[ \t]+(?P<alias>\w+))?[ \t]*(?=$|#)",
        plain_import,
        text,
        flags=re.M,
    )


def _write_like(source, text: str, target: Path) -> None:
    """Write ``text`` with the encoding, BOM and line endings of ``source``."""
    from codemod.fileio import encode_check

    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(encode_check(source, text))


def _index(case: Path):
    from codemod.fileio import read_source
    from codemod.repo_index import RepoIndex

    index = RepoIndex(root=case)  # the case is the repository: its requirements.txt, if any, is read
    for name, path in _repo_modules(case).items():
        index.add_file(path, text=read_source(path).text, name=name)
    return index


def _build_case(root: Path, case: Path) -> tuple[list[ClassRewrite], dict[Path, str], bool]:
    """Lay the case out as package ``<case>`` under root; return its rewrites, overlay entry, examples."""
    from codemod.api import analyse_text
    from codemod.fileio import read_source
    from codemod.ftypes import AnalysisOptions

    package = case.name
    assert package.isidentifier(), f"golden case {package!r} is not a valid package name"
    pkg = root / package
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    modules = set(_repo_modules(case)) | {"input"}

    source = read_source(case / "input.py")
    index = _index(case)
    index.add_file(Path("input.py"), text=source.text, name="input")
    from test_golden import _persistent

    analysis = analyse_text(index, Path("input.py"), source.text, "input.py", AnalysisOptions(_persistent(case)))
    assert analysis.result.error is None, analysis.result.error
    result = analysis.result
    # the edited statements of each class, whose running validation checks
    statements = {c.class_name: c.statements for c in result.classes}
    _write_like(source, _scope_imports(source.text, package, modules), pkg / "input.py")
    for name, path in _repo_modules(case).items():
        repo_source = read_source(path)
        target = pkg.joinpath(*name.split(".")).with_suffix(".py")
        if path.name == "__init__.py":
            target = pkg.joinpath(*name.split("."), "__init__.py")
        _write_like(repo_source, _scope_imports(repo_source.text, package, modules), target)
    for directory in {p.parent for p in pkg.rglob("*.py")}:
        (directory / "__init__.py").touch()

    expected = read_source(case / "expected.py").text
    overlay = {pkg / "input.py": _scope_imports(expected, package, modules)}

    has_examples = (case / "examples.py").is_file()
    if has_examples:
        text = read_source(case / "examples.py").text
        text = _scope_imports(text, package, modules)
        text = re.sub(r"""(["'])input\.""", rf"\g<1>{package}.input.", text)
        (pkg / "golden_examples.py").write_text(text, encoding="utf-8")

    rewrites: dict[str, list] = {}
    for finding in result.findings:
        if finding.action is not Action.SKIP:
            rewrites.setdefault(finding.class_name, []).append(finding)
    classes = [
        ClassRewrite(pkg / "input.py", f"{package}.input", name, found, statements.get(name, ()))
        for name, found in rewrites.items()
    ]
    return classes, overlay, has_examples


@pytest.fixture(scope="module")
def golden_validation(tmp_path_factory):
    """Validate every golden case in one run on the meta path, which gives the same evidence
    on every machine (auto picks the GPU where there is one); {(case, class): Validation}."""
    return _validate_every_case(tmp_path_factory.mktemp("golden_validation"), "meta")


def _validate_every_case(root: Path, device: str) -> dict:
    from codemod.validate import ValidationOptions, validate_rewrites

    rewrites: list[ClassRewrite] = []
    overlay: dict[Path, str] = {}
    example_modules = []
    for case in CASES:
        classes, entry, has_examples = _build_case(root, case)
        assert classes, f"{case.name}: report.txt lists rewrites but the tool finds none"
        rewrites += classes
        overlay.update(entry)
        if has_examples:
            example_modules.append(f"import {case.name}.golden_examples")
    (root / "codemod_examples.py").write_text("\n".join(example_modules) + "\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    # New state_dict keys (parameters, persistent buffers) are what these rewrites plan;
    # test_new_keys_are_exactly_the_planned_ones checks that nothing else breaks old checkpoints.
    results = validate_rewrites(root, rewrites, overlay, ValidationOptions(jobs=2, timeout=120, device=device))
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert after == before, "validation changed the scratch repository"
    validations = {(r.path.parent.name, r.class_name): results.get((r.path, r.class_name)) for r in rewrites}
    PLANNED_KEYS.update({
        (r.path.parent.name, r.class_name): {
            f.attribute for f in r.findings if f.action is Action.PARAMETER or f.persistent is True
        }
        for r in rewrites
    })
    return validations


PLANNED_KEYS: dict[tuple[str, str], set[str]] = {}  # (case, class) -> attributes the rewrite saves


def test_new_keys_are_exactly_the_planned_ones(golden_validation):
    """A checkpoint saved before the rewrite may lack only the planned keys, and a rewrite that
    adds one changes the checkpoint format (its own verdict, with how to load old checkpoints)."""
    for key, validation in golden_validation.items():
        if validation is None or validation.checkpoint_compatible is None:
            continue
        planned = PLANNED_KEYS[key]
        assert set(validation.missing_keys) <= planned, (key, validation.missing_keys, planned)
        if validation.checkpoint_compatible is False:
            assert validation.missing_keys, f"{key}: an old checkpoint fails for another reason:\n{_describe(validation)}"
            for attr in validation.missing_keys:
                if validation.verdict_for(attr) is Verdict.CHANGES_CHECKPOINT:
                    message = validation.message_for(attr)
                    assert "strict=False" in message and f"missing_keys=[{attr}]" in message, message


def test_there_are_cases_with_rewrites():
    assert len(CASES) >= 40


def test_lists_name_real_golden_classes():
    from codemod.fileio import read_source

    for (case, cls), reason in CANNOT_BUILD.items():
        assert reason and (GOLDEN / case / "input.py").is_file(), (case, cls)
    for case, cls in [*BRANCH_NOT_TAKEN, *READ_NOT_RUN, *COVERED_BY_MORE_BUILDS, *WITHOUT_FORWARD, *HOLDS_NONE, *FILLED_BY_FORWARD,
                      *FILLED_BY_SETTER]:
        assert re.search(rf"^class {cls}\b", read_source(GOLDEN / case / "input.py").text, re.M), (case, cls)
    for case, cls, attr in MIXES_DEVICES:
        text = read_source(GOLDEN / case / "input.py").text
        assert re.search(rf"^class {cls}\b", text, re.M), (case, cls)
        assert re.search(rf"self\.{attr}\b", text), (case, cls, attr)


def _describe(validation) -> str:
    if validation is None:
        return "no verdict"
    lines = [f"{validation.verdict.value} on {validation.device}: {validation.message}"]
    lines += [f"  {d}" for d in validation.details]
    if validation.snippet:
        lines.append(f"  snippet: {validation.snippet}")
    return "\n".join(lines)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_golden_case_validates(case: Path, golden_validation):
    verdicts = {cls: v for (name, cls), v in golden_validation.items() if name == case.name}
    assert verdicts, f"{case.name}: no class was validated"
    for cls, validation in sorted(verdicts.items()):
        assert validation is not None, f"{case.name}.{cls}: no verdict"
        if (case.name, cls) in CANNOT_BUILD:
            assert validation.verdict is Verdict.NOT_VALIDATED, f"{case.name}.{cls}:\n{_describe(validation)}"
            assert CANNOT_BUILD[(case.name, cls)] in validation.message, _describe(validation)
            continue
        unproven = BRANCH_NOT_TAKEN.get((case.name, cls), set())
        unread = READ_NOT_RUN.get((case.name, cls), set())
        holds_none = HOLDS_NONE.get((case.name, cls), set())
        filled_by_forward = FILLED_BY_FORWARD.get((case.name, cls), set())
        without_forward = WITHOUT_FORWARD.get((case.name, cls), set())
        planned = PLANNED_KEYS[(case.name, cls)]
        for attr in filled_by_forward:
            assert f"attributes: {attr} holds None after construction; compared as the first forward left it" \
                in validation.details, _describe(validation)
            assert any(d.startswith("casts after a first forward: ") for d in validation.details), _describe(validation)
        filled_by_setter, setter = FILLED_BY_SETTER.get((case.name, cls), (set(), ""))
        for attr in filled_by_setter:
            assert validation.rewrites[attr]["forward"] == "compared", _describe(validation)
            assert any(f"then {setter}(" in validation.builds[i - 1] for i in validation.rewrites[attr]["builds"])
        for attr, own in validation.rewrites.items():
            if attr in unproven:
                expected = Verdict.NOT_VALIDATED
                assert "branch not taken in any of the" in own["message"] or "with these arguments" in own["message"]
            elif attr in unread:
                expected = Verdict.NOT_VALIDATED
                assert own["forward"] == "compared" and "never ran, so what a cast" in own["message"], own
            elif attr in holds_none:
                expected = Verdict.NOT_VALIDATED
                assert "holds None" in own["message"], own
            elif attr in without_forward:
                expected = Verdict.CHECKED_WITHOUT_FORWARD
            elif attr in validation.missing_keys:
                expected = Verdict.CHANGES_CHECKPOINT  # a new parameter or persistent buffer: a new key
                assert attr in planned, (attr, planned)
            else:
                expected = Verdict.PASSED
            assert validation.verdict_for(attr) is expected, f"{case.name}.{cls}.{attr}: {own}\n{_describe(validation)}"
        assert set(validation.rewrites) >= unproven | unread | holds_none | without_forward | filled_by_forward
        if (case.name, cls) in COVERED_BY_MORE_BUILDS:
            assert len(validation.builds) >= 2, validation.builds
            assert any(COVERED_BY_MORE_BUILDS[(case.name, cls)] in b for b in validation.builds[1:]), validation.builds
            assert validation.branches[0] == validation.branches[1], validation.branches
        assert validation.device == "cpu+meta", f"{case.name}.{cls}:\n{_describe(validation)}"
        assert {"state_dict", "parameters", "device_movement"} <= set(validation.compared), validation.compared
        assert validation.max_abs_diff in (None, 0.0), f"{case.name}.{cls}:\n{_describe(validation)}"


@pytest.mark.cuda
@pytest.mark.skipif(not __import__("torch").cuda.is_available(), reason="needs a CUDA device")
def test_every_golden_verdict_is_the_same_on_the_gpu(tmp_path_factory, golden_validation):
    """On a GPU the device stage builds the model again with its own .cuda() calls real and runs
    its forward there: each rewrite gets the verdict the meta path gives it, and a forward
    compared there agrees with the original's."""
    on_gpu = _validate_every_case(tmp_path_factory.mktemp("golden_validation_gpu"), "cuda")
    assert on_gpu.keys() == golden_validation.keys()
    for key, meta in golden_validation.items():
        gpu = on_gpu[key]
        assert meta is not None and gpu is not None, key
        if meta.device is None:  # held back before any worker ran (a class defined in a function)
            assert gpu.device is None and gpu.verdict is meta.verdict, (key, gpu.message)
            continue
        assert gpu.device is not None and gpu.device.startswith("cuda"), (key, gpu.device, gpu.message)
        for attr in meta.rewrites:
            assert gpu.verdict_for(attr) is meta.verdict_for(attr), f"{key}.{attr}:\n{_describe(meta)}\n{_describe(gpu)}"
        if "forward:meta" in meta.compared and key not in FILLED_BY_FORWARD:
            assert f"forward:{gpu.device}" in gpu.compared, f"{key}:\n{_describe(gpu)}"
        elif "forward:meta" in meta.compared:
            # a slot that the forward fills: the meta path moves the model after a first forward
            # filled it; the fresh GPU build is moved empty, and its forward fills the slot on
            # the CPU (torch.arange with no device) on both sides, which no rewrite changes
            assert f"forward:{gpu.device}" in gpu.compared or any(
                "the original fails there too" in d for d in gpu.details), f"{key}:\n{_describe(gpu)}"


def _has_examples_with_inputs(case: str, cls: str) -> bool:
    path = GOLDEN / case / "examples.py"
    return path.is_file() and re.search(rf"""["']input\.{cls}["'][\s\S]*?inputs\s*=""", path.read_text("utf-8")) is not None


def test_forward_is_compared_wherever_the_examples_give_inputs(golden_validation):
    with_inputs = [(case, cls) for (case, cls) in golden_validation if _has_examples_with_inputs(case, cls)]
    assert len(with_inputs) >= 10  # the examples files of many cases give inputs
    for case, cls in with_inputs:
        validation = golden_validation[(case, cls)]
        assert validation is not None and "forward:cpu" in validation.compared, f"{case}.{cls}:\n{_describe(validation)}"
        assert validation.max_abs_diff == 0.0, f"{case}.{cls}:\n{_describe(validation)}"


@pytest.mark.parametrize("case,cls,attr", MIXES_DEVICES, ids=[f"{c}.{k}" for c, k, _ in MIXES_DEVICES])
def test_meta_device_shows_the_original_fails_and_the_rewrite_runs(case, cls, attr, golden_validation):
    validation = golden_validation.get((case, cls))
    assert validation is not None, f"{case}.{cls} was not validated"
    # a lazy buffer that only a setup method fills holds no tensor: not proven, but the forward ran
    proven = Verdict.NOT_VALIDATED if (case, cls) in HOLDS_NONE else Verdict.PASSED
    if (case, cls) in WITHOUT_FORWARD:
        proven = Verdict.CHECKED_WITHOUT_FORWARD  # another rewrite of the class only an unrun method reads
    assert validation.verdict in (proven, Verdict.CHANGES_CHECKPOINT), _describe(validation)
    assert validation.forward_compared, _describe(validation)
    assert validation.device == "cpu+meta"
    assert "device_movement" in validation.compared
    assert "forward:meta" in validation.compared, _describe(validation)
    assert validation.original_failure, _describe(validation)
    failure = validation.original_failure
    assert "cpu" in failure and "meta" in failure and "device" in failure, failure
    assert f"{attr} (cpu)" in validation.left_behind, validation.left_behind


def test_no_other_class_claims_an_original_failure(golden_validation):
    """The original fails on meta only where its forward really mixes devices: a raw tensor it
    leaves behind meets moved ones; and the rewrite runs there, unless a raw tensor is kept."""
    wrong = []
    for key, validation in golden_validation.items():
        if validation is None or not validation.original_failure:
            continue
        failure = validation.original_failure
        # the meta checker's words, or a layer's own check (an RNN's "Input and hidden tensors
        # are not at the same device, found input tensor at meta and hidden tensor at cpu")
        mixed = "mixed devices ['cpu', 'meta']" in failure or ("same device" in failure and "meta" in failure and "cpu" in failure)
        if not mixed or not validation.left_behind:
            wrong.append(f"{key}: {validation.original_failure}; left behind: {validation.left_behind}")
        elif key not in STILL_MIXES_AFTER_REWRITE + NO_META_KERNELS and "forward:meta" not in validation.compared:
            wrong.append(f"{key}: the rewrite still fails on meta but is not listed in STILL_MIXES_AFTER_REWRITE")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("case,cls", STILL_MIXES_AFTER_REWRITE, ids=[f"{c}.{k}" for c, k in STILL_MIXES_AFTER_REWRITE])
def test_a_kept_raw_attribute_still_mixes_devices_after_the_rewrite(case, cls, golden_validation):
    validation = golden_validation.get((case, cls))
    assert validation is not None and validation.original_failure, _describe(validation)
    assert "forward:meta" not in validation.compared, _describe(validation)  # the rewrite cannot run there either
    # what was rewritten matches on cpu
    assert validation.verdict in (Verdict.PASSED, Verdict.CHANGES_CHECKPOINT), _describe(validation)
