"""Where zero-setup forward inputs and builds come from, without running a validation:
inputs made up for the forwards users write (synth.py), the repository's own calls read
statically (calls.py), which attributes a forward reads (reads.py), and the variants of a
build (build.py)."""

from __future__ import annotations

import dataclasses
import inspect
import json
import linecache
import os
import textwrap
import typing
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from codemod.validate import build, calls, reads, synth

# -- made-up inputs ----------------------------------------------------------------------------


def _runs(model: nn.Module, candidate: dict) -> bool:
    args, kwargs = synth.make_inputs(candidate)
    try:
        model(*args, **kwargs)
    except Exception:
        return False
    return True


def _first_that_runs(model: nn.Module) -> dict:
    return next(c for c in synth.input_candidates(model) if _runs(model, c))


def test_a_loss_gets_a_prediction_and_a_target_of_the_same_shape():
    class Loss(nn.Module):
        def forward(self, pred, gt):
            return ((pred - gt) ** 2).mean()

    first = synth.input_candidates(Loss())[0]
    prediction, target = first["args"]
    assert prediction["op"] == "randn" and prediction["shape"] == target["shape"]
    # the target in [0, 1): probabilities, a mask or soft labels, never a negative one
    assert target["op"] == "rand"
    assert _runs(Loss(), first)


def test_a_classification_loss_gets_class_indices_for_its_target():
    class Classification(nn.Module):
        def forward(self, logits, labels):
            return nn.functional.nll_loss(logits.log_softmax(1), labels)

    chosen = _first_that_runs(Classification())
    logits, labels = chosen["args"]
    assert labels["op"] == "randint" and labels["high"] == logits["shape"][1]
    assert labels["shape"] == [logits["shape"][0], *logits["shape"][2:]]


def test_a_masked_sequence_loss_gets_steps_flattened_and_a_mask_per_batch_and_step():
    class MaskedNLLLoss(nn.Module):
        def __init__(self):
            super().__init__()
            self.loss = nn.NLLLoss(reduction="sum")

        def forward(self, pred, target, mask):
            mask_ = mask.view(-1, 1)  # batch * seq_len, 1
            return self.loss(pred * mask_, target) / torch.sum(mask)

    chosen = _first_that_runs(MaskedNLLLoss())
    pred, target, mask = chosen["args"]
    assert mask["op"] == "ones" and pred["shape"][0] == target["shape"][0] == mask["shape"][0] * mask["shape"][1]
    assert target["op"] == "randint" and target["high"] == pred["shape"][1]


class _IoULoss(nn.Module):
    """A segmentation loss: per-class weights wrapped in a Variable, one-hot targets of its
    own number of classes."""

    def __init__(self, weight=None, n_classes=2):
        super().__init__()
        self.classes = n_classes
        self.weights = torch.autograd.Variable(weight * weight)

    def forward(self, inputs, target):
        n, h, w = target.size()
        one_hot = torch.zeros(n, self.classes, h, w).scatter_(1, target.view(n, 1, h, w), 1)
        inter = (inputs.softmax(1) * one_hot).view(n, self.classes, -1).sum(2)
        return (self.weights * inter).mean()


def test_a_loss_gets_class_weights_for_its_classes_and_scores_of_that_many_classes():
    (first, *_) = synth.argument_candidates(_IoULoss, none_defaults=True)  # its defaults do not build it
    assert first.kwargs["weight"].shape == (2,)  # ones(n_classes), not a made-up number
    model = _IoULoss(*first.args, **first.kwargs)
    chosen = _first_that_runs(model)
    scores, target = chosen["args"]
    assert scores["shape"][1] == target["high"] == 2 and target["op"] == "randint"


def test_a_sequence_model_gets_tokens_within_its_embedding_range():
    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Embedding(13, 4), nn.Linear(4, 2))

        def forward(self, src):
            return self.encoder(src)

    chosen = _first_that_runs(Tagger())
    (tokens,) = chosen["args"]
    assert tokens == {"op": "randint", "high": 13, "shape": [2, 7]}


def test_an_image_model_gets_larger_images_when_small_ones_do_not_fit():
    class Downsampler(nn.Module):
        def __init__(self):
            super().__init__()
            layers = [nn.Conv2d(3 if i == 0 else 4, 4, 3, stride=2, padding=0) for i in range(4)]
            self.body = nn.Sequential(*layers)

        def forward(self, image):
            return self.body(image)

    chosen = _first_that_runs(Downsampler())
    assert chosen["args"][0]["shape"] == [2, 3, 32, 32]  # four stride-2 3x3 convolutions need more than 16


def test_a_layer_less_pyramid_loss_gets_images_large_enough_to_halve_five_times():
    class PyramidLoss(nn.Module):  # a Laplacian pyramid: a depthwise kernel it holds, reflect padding
        def __init__(self, levels=5, channels=3):
            super().__init__()
            self.levels = levels
            self.kernel = torch.ones(channels, 1, 5, 5) / 25

        def forward(self, input, target):
            loss = 0.0
            for _ in range(self.levels):
                a = nn.functional.pad(input, (2, 2, 2, 2), mode="reflect")
                b = nn.functional.pad(target, (2, 2, 2, 2), mode="reflect")
                a = nn.functional.conv2d(a, self.kernel, groups=input.shape[1])
                b = nn.functional.conv2d(b, self.kernel, groups=target.shape[1])
                loss = loss + (a - b).abs().mean()
                input, target = a[:, :, ::2, ::2], b[:, :, ::2, ::2]
            return loss

    chosen = _first_that_runs(PyramidLoss())
    assert chosen["args"][0]["shape"][2:] == [synth.LARGE_IMAGE, synth.LARGE_IMAGE], chosen
    assert chosen["args"][0]["shape"] == chosen["args"][1]["shape"] and chosen["args"][1]["op"] == "rand"


def _error(model: nn.Module, candidate: dict) -> str:
    args, kwargs = synth.make_inputs(candidate)
    try:
        model(*args, **kwargs)
    except Exception as exc:
        return str(exc)
    raise AssertionError("the candidate ran")


def test_inputs_are_made_again_at_the_rank_a_failed_forward_asks_for():
    class Capsules(nn.Module):  # no layer to size its input from: `b, c, h, w = x.shape`
        def __init__(self):
            super().__init__()
            self.scale = torch.ones(1)

        def forward(self, x):
            b, c, h, w = x.shape
            return x.reshape(b, c, h * w) * self.scale

    class PaddedLoss(nn.Module):  # F.pad of four sizes: images, which a pair of matrices is not
        def forward(self, input, target):
            pad = (2, 2, 2, 2)
            return (nn.functional.pad(input, pad, mode="reflect") - nn.functional.pad(target, pad, mode="reflect")).abs().mean()

    class Conv(nn.Module):  # a conv2d handed the matrix its weight's shape does not explain
        def __init__(self):
            super().__init__()
            self.weight = torch.ones(4, 3, 3, 3)

        def forward(self, x):
            return nn.functional.conv2d(x, self.weight)

    for model in (Capsules(), PaddedLoss(), Conv()):
        made = synth.input_candidates(model)
        failed = [c for c in made if not _runs(model, c)]
        flat = next(c for c in failed if len(c["args"][0]["shape"]) < 4)
        repaired = synth.repaired_candidates(flat, _error(model, flat))
        assert repaired and all(len(c["args"][0]["shape"]) == 4 for c in repaired), (model, flat, repaired)
        assert any(_runs(model, c) for c in repaired), (model, repaired)
        assert all(c["args"][0]["shape"] == c["args"][1]["shape"] for c in repaired if len(c["args"]) == 2), \
            "a pair stays alike"
    assert synth.repaired_candidates({"args": [{"op": "randn", "shape": [2, 16]}], "kwargs": {}}, "boom") == []


def test_inputs_are_made_again_one_rank_at_a_time_past_the_dimension_a_forward_reads():
    class Warp(nn.Module):  # `x.size(2)`, then `x.size(3)`: each error names one dimension more
        def __init__(self):
            super().__init__()
            self.sigma = torch.ones(1)

        def forward(self, x):
            height, width = x.size(2), x.size(3)
            return x.mean() * self.sigma * height * width

    matrix = {"args": [{"op": "randn", "shape": [2, 16]}], "kwargs": {}}
    message = _error(Warp(), matrix)
    assert "Dimension out of range" in message
    volumes = synth.repaired_candidates(matrix, message)
    assert volumes and all(len(c["args"][0]["shape"]) == 3 for c in volumes)
    images = synth.repaired_candidates(volumes[0], _error(Warp(), volumes[0]))
    assert images and all(len(c["args"][0]["shape"]) == 4 for c in images)
    assert any(_runs(Warp(), c) for c in images)
    # the error names a tensor of another rank than the first input: nothing to repair
    assert synth.repaired_candidates(matrix, "Dimension out of range (expected to be in range of [-3, 2], but got 3)") == []


def test_inputs_are_made_again_at_the_size_a_broadcast_against_a_held_table_asks_for():
    class Encoder(nn.Module):  # `src` reads as token ids, but it is B x T x 12 features
        def __init__(self):
            super().__init__()
            self.time_signal = torch.randn(1, 50, 12)
            self.norm = nn.LayerNorm(12)

        def forward(self, src):
            return self.norm(src[:] + self.time_signal[:, : src.shape[1], :])

    model = Encoder()
    tokens = next(c for c in synth.input_candidates(model) if c["args"][0]["op"] == "randint")
    message = _error(model, tokens)
    assert "must match the size of tensor b (12)" in message
    repaired = synth.repaired_candidates(tokens, message)
    assert repaired[0]["args"][0] == {"op": "randn", "shape": [*tokens["args"][0]["shape"], 12]}
    assert _runs(model, repaired[0])


def test_inputs_are_made_again_at_the_shape_a_failed_view_names():
    class Fold(nn.Module):  # a code vector per sample, viewed as (batch, channels, 1)
        def __init__(self, in_channel=8):
            super().__init__()
            self.in_channel = in_channel
            self.folding_seed = torch.linspace(-1, 1, 4).view(1, 1, 4)
            self.proj = nn.Conv1d(in_channel, 3, 1)

        def forward(self, x):
            return self.proj(x.view(x.size(0), self.in_channel, 1) + self.folding_seed)

    model = Fold()
    wrong = {"args": [{"op": "randn", "shape": [2, 10, 16]}], "kwargs": {}}
    message = _error(model, wrong)
    assert "shape '[2, 8, 1]' is invalid" in message
    repaired = synth.repaired_candidates(wrong, message)
    assert [c["args"][0]["shape"] for c in repaired] == [[2, 8], [2, 8, 1]]
    assert all(_runs(model, c) for c in repaired)
    assert synth.repaired_candidates(wrong, "shape '[4, 8]' is invalid for input of size 320") == []  # another batch


def test_a_time_per_sample_is_made_again_as_a_column_and_an_image_at_the_channels_a_conv_asks():
    class TimeConditioned(nn.Module):  # `t.float() * self.freqs[None]`: t is (batch, 1)
        def __init__(self):
            super().__init__()
            self.freqs = torch.linspace(1.0, 2.0, 6)
            self.blocks = nn.ModuleList([nn.Conv2d(3, 4, 1), nn.Conv2d(4, 4, 1)])

        def forward(self, x, t):
            args = t.float() * self.freqs[None]
            for block in self.blocks:  # iterated: which layer comes first is not read
                x = block(x)
            return x.mean() + args.sum()

    model = TimeConditioned()
    vector = {"args": [{"op": "randn", "shape": [2, 3, 8, 8]}, {"op": "rand", "shape": [2]}], "kwargs": {}}
    message = _error(model, vector)
    assert "size of tensor a (2) must match the size of tensor b (6)" in message
    column = synth.repaired_candidates(vector, message)
    assert column[0]["args"][1] == {"op": "rand", "shape": [2, 1]} and _runs(model, column[0])
    wide = {"args": [{"op": "randn", "shape": [2, 4, 8, 8]}, {"op": "rand", "shape": [2, 1]}], "kwargs": {}}
    message = _error(model, wide)
    assert "to have 3 channels" in message
    narrowed = synth.repaired_candidates(wide, message)
    assert narrowed[0]["args"][0] == {"op": "randn", "shape": [2, 3, 8, 8]} and _runs(model, narrowed[0])


def test_class_indices_made_up_as_floats_are_made_again_as_integers():
    class OneHotLoss(nn.Module):  # `F.one_hot(target, n)` takes integer class indices
        def __init__(self):
            super().__init__()
            self.weights = torch.ones(1, 4) / 4

        def forward(self, logits, target):
            one_hot = nn.functional.one_hot(target, 4).float()
            return ((logits - one_hot) ** 2 * self.weights).mean()

    model = OneHotLoss()
    floats = {"args": [{"op": "randn", "shape": [2, 4]}, {"op": "randn", "shape": [2]}], "kwargs": {}}
    message = _error(model, floats)
    assert "one_hot is only applicable to index tensor" in message
    repaired = synth.repaired_candidates(floats, message)
    assert repaired[0]["args"] == [{"op": "randn", "shape": [2, 4]}, {"op": "randint", "high": 2, "shape": [2]}]
    assert _runs(model, repaired[0])


def test_a_view_of_a_fixed_shape_after_the_batch_gets_inputs_of_that_shape():
    class Digits(nn.Module):  # `x.view(-1, 1, 28, 28)`: a flat image or the image itself
        def __init__(self):
            super().__init__()
            self.mean = torch.tensor(0.1307)
            self.conv = nn.Conv2d(1, 2, 3)

        def forward(self, x):
            return self.conv(x.view(-1, 1, 28, 28) - self.mean)

    class Pose(nn.Module):  # a dict of keypoints, each `(batch, 16, 13, 3)` whatever its layout
        def __init__(self):
            super().__init__()
            self.scale = torch.ones(3)

        def forward(self, data):
            return data["keypoints0"].reshape(-1, 16, 13, 3) * self.scale

    flat = {"args": [{"op": "randn", "shape": [2, 16]}], "kwargs": {}}
    message = _error(Digits(), flat)
    assert "shape '[-1, 1, 28, 28]' is invalid" in message
    repaired = synth.repaired_candidates(flat, message)
    assert [c["args"][0]["shape"] for c in repaired] == [[2, 784], [2, 1, 28, 28]]
    assert all(_runs(Digits(), c) for c in repaired)
    nested = {"args": [{"op": "dict", "items": [["keypoints0", {"op": "randn", "shape": [2, 7, 8]}]]}], "kwargs": {}}
    message = _error(Pose(), nested)
    repaired = synth.repaired_candidates(nested, message)
    assert repaired and repaired[0]["args"][0]["items"][0][1]["shape"] == [2, 624]
    assert _runs(Pose(), repaired[0])


def test_a_recurrent_cell_gets_one_step_of_its_input_size():
    class Stepper(nn.Module):
        def __init__(self):
            super().__init__()
            self.cell = nn.GRUCell(5, 8)

        def forward(self, x):
            return self.cell(x)

    assert _first_that_runs(Stepper())["args"][0]["shape"] == [2, 5]


def test_a_graph_model_gets_nodes_from_the_adjacency_it_holds():
    class GCN(nn.Module):
        def __init__(self):
            super().__init__()
            self.adj = torch.eye(5)
            self.lin = nn.Linear(3, 3)

        def forward(self, x):
            return torch.mm(self.adj, self.lin(x))

    class WithAdjacency(nn.Module):
        def __init__(self):
            super().__init__()
            self.supports = [torch.eye(6)]
            self.lin = nn.Linear(3, 3)

        def forward(self, x, adj):
            return adj @ self.lin(x)

    assert _first_that_runs(GCN())["args"][0]["shape"] == [5, 3]
    chosen = _first_that_runs(WithAdjacency())
    assert chosen["args"][1] == {"op": "rand", "shape": [6, 6]}


def test_node_features_get_one_row_per_node_of_a_held_neighbourhood_matrix_past_first_layers():
    class Contrastive(nn.Module):  # x @ W, then a readout over the neighbours the model holds
        def __init__(self, graph_neigh):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(3, 4))
            self.graph_neigh = graph_neigh

        def forward(self, feat, adj):
            z = torch.mm(adj, torch.mm(feat, self.weight))
            return torch.mm(self.graph_neigh, z)

    first, *_ = synth.argument_candidates(Contrastive)
    assert first.kwargs["graph_neigh"].shape == (8, 8)  # named like a graph's matrix: a square tensor
    chosen = _first_that_runs(Contrastive(**first.kwargs))
    assert chosen["args"][0]["shape"] == [8, 3] and chosen["args"][1]["shape"] == [8, 8]


def test_node_features_get_one_row_per_node_of_an_adjacency_handed_in():
    class Propagate(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(3, 4))

        def forward(self, x, adj):
            return torch.mm(adj, torch.mm(x, self.weight))

    chosen = _first_that_runs(Propagate())
    assert chosen["args"][0]["shape"][0] == chosen["args"][1]["shape"][0] == chosen["args"][1]["shape"][1]


def test_a_traffic_model_over_nodes_and_time_gets_its_node_count():
    class Traffic(nn.Module):
        def __init__(self):
            super().__init__()
            self.adj = torch.rand(7, 7)
            self.start = nn.Conv2d(2, 4, (1, 1))

        def forward(self, x):
            h = self.start(x)
            return torch.einsum("bcnt,nm->bcmt", h, self.adj)

    assert synth.input_candidates(Traffic())[0]["args"][0]["shape"] == [2, 2, 7, 13]


def test_a_skeleton_model_gets_poses_of_its_joints_from_its_data_norm_and_adjacency():
    """ST-GCN's data norm is `BatchNorm1d(C * V)` over V joints of C coordinates, beside a
    V x V adjacency; its forward unpacks four sizes (`N, T, V, C = x.size()`), which neither
    a batch of 51 features nor a made-up image has."""

    class Skeleton(nn.Module):
        def __init__(self, joints=17, channels=3):
            super().__init__()
            self.A = torch.eye(joints)[None]
            self.data_bn = nn.BatchNorm1d(channels * joints)
            self.conv = nn.Conv2d(channels, 4, 1)

        def forward(self, poses):
            n, t, v, c = poses.size()
            x = self.data_bn(poses.permute(0, 2, 3, 1).reshape(n, v * c, t))
            x = x.view(n, v, c, t).permute(0, 2, 3, 1)
            return torch.einsum("nctv,kvw->nctw", self.conv(x), self.A).mean((2, 3))

    assert _first_that_runs(Skeleton())["args"][0]["shape"] == [2, synth.SEQ, 17, 3]


def test_a_layer_less_module_gets_the_shapes_of_the_tensors_it_holds():
    class Masked(nn.Module):
        def __init__(self):
            super().__init__()
            self.mask = torch.ones(4, 4).bool()

        def forward(self, scores):
            return scores.masked_fill(~self.mask, 0.0)

    assert _first_that_runs(Masked())["args"][0]["shape"] == [2, 4, 4]


def test_a_layer_less_graph_module_gets_node_features_from_a_per_channel_adjacency():
    class ChannelGraph(nn.Module):  # one adjacency per output channel, x @ W without nn layers
        def __init__(self):
            super().__init__()
            self.W = nn.Parameter(torch.ones(2, 3, 4))
            self.adj = torch.eye(6).unsqueeze(0).repeat(4, 1, 1)

        def forward(self, x):
            h = torch.matmul(x, self.W[0]).unsqueeze(1).transpose(1, 3)  # B x C x N x 1
            return torch.matmul(self.adj, h).squeeze(-1)

    assert _first_that_runs(ChannelGraph())["args"][0]["shape"] == [2, 6, 3]


def test_a_one_channel_signal_is_among_the_shapes_tried():
    class Sinc(nn.Module):  # filters built from tensors it holds, applied with F.conv1d
        def __init__(self):
            super().__init__()
            self.window = torch.hamming_window(5)
            self.band = nn.Parameter(torch.ones(4, 1))

        def forward(self, waveform):
            filters = (self.band * self.window).unsqueeze(1)
            return torch.nn.functional.conv1d(waveform, filters)

    assert _first_that_runs(Sinc())["args"][0]["shape"] == [2, 1, 64]


def test_made_up_constructor_arguments_for_tensors_adjacencies_and_anchors():
    class Layer(nn.Module):
        def __init__(self, weight: torch.Tensor, adj, anchors):
            super().__init__()
            self.weight = weight
            self.adj = adj
            self.anchors = torch.tensor(anchors, dtype=torch.float32)

    first, *rest = synth.argument_candidates(Layer)
    assert isinstance(first.kwargs["weight"], torch.Tensor) and first.kwargs["weight"].shape == (8,)
    assert first.kwargs["adj"].shape == (8, 8)
    assert first.kwargs["anchors"] == [(10, 13), (16, 30), (33, 23)]
    Layer(**first.kwargs)  # they build it
    # the same candidates on every call: both sides rebuild them from their index
    again = synth.argument_candidates(Layer)
    assert [c.description for c in again] == [first.description, *(c.description for c in rest)]
    assert torch.equal(again[0].kwargs["adj"], first.kwargs["adj"])


def test_a_timestep_gets_one_number_per_sample():
    class TimeEmbedding(nn.Module):
        def __init__(self):
            super().__init__()
            self.freqs = torch.linspace(0, 1, 4)
            self.proj = nn.Linear(8, 8)

        def forward(self, t):
            args = torch.outer(t, self.freqs)
            return self.proj(torch.cat([args.sin(), args.cos()], -1))

    assert _first_that_runs(TimeEmbedding())["args"][0] == {"op": "rand", "shape": [2]}


def test_the_times_of_a_sequence_get_one_number_per_step():
    """`event_time` beside a sequence (a point process's temporal encoding) is one time per
    step of each sample, the shape of the padding mask beside it."""
    class TemporalEncoding(nn.Module):
        def __init__(self):
            super().__init__()
            self.position_vec = torch.tensor([1.0, 100.0])
            self.proj = nn.Linear(2, 2)

        def forward(self, event_time, non_pad_mask):
            result = event_time.unsqueeze(-1) / self.position_vec
            return self.proj(result * non_pad_mask.unsqueeze(-1))

    first = _first_that_runs(TemporalEncoding())
    assert first["args"][0] == {"op": "rand", "shape": [2, synth.SEQ]}, first


def test_forward_annotations_and_defaults():
    class Annotated(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, xs: list[torch.Tensor], steps: int, mask=None):
            return sum(self.lin(x) for x in xs) * steps

    first = synth.input_candidates(Annotated())[0]
    assert first["args"][0]["op"] == "list" and first["args"][1] == {"op": "value", "value": 2}
    assert len(first["args"]) == 2  # mask keeps its default
    assert _runs(Annotated(), first)


def test_inputs_the_repository_passes_come_first():
    known = {"args": [{"op": "randn", "shape": [3, 5]}], "kwargs": {}}

    class Any_(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(5, 5)

        def forward(self, x):
            return self.lin(x)

    assert synth.input_candidates(Any_(), [known])[0] == known


def test_value_specs_round_trip_through_json():
    spec = {"args": [{"op": "tuple", "items": [{"op": "eye", "n": 3}, {"op": "arange", "start": 0, "end": 4}]},
                     {"op": "tensor", "data": [1, 2], "dtype": "long"},
                     {"op": "namespace", "kwargs": {"hidden": {"op": "value", "value": 8}}}],
            "kwargs": {"d": {"op": "dict", "items": [["a", {"op": "zeros", "shape": [2], "dtype": "float64"}]]}}}
    args, kwargs = synth.make_inputs(json.loads(json.dumps(spec)))
    assert torch.equal(args[0][0], torch.eye(3)) and torch.equal(args[0][1], torch.arange(4))
    assert args[1].dtype == torch.int64 and args[2].hidden == 8 and kwargs["d"]["a"].dtype == torch.float64
    assert synth.describe(spec) == "(eye(3), arange(0, 4)), tensor([1, 2], long), namespace(hidden=8), " \
                                   "d={'a': zeros(2, float64)}"


# -- the repository's own calls, read statically -------------------------------------------------

NET = '''
import torch
from torch import nn
from .config import Cfg


class Net(nn.Module):
    """A network.

    >>> m = Net(4, use_bias=True)
    >>> m(torch.randn(2, 4)).shape
    """

    def __init__(self, dim, use_bias=False, cfg=None):
        super().__init__()


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    n = 8
    net = Net(n * 2, cfg=Cfg(n=3)).to(device)
    x = torch.randn(4, n * 2).to(device)
    with torch.no_grad():
        print(net(x).shape)
    Net(open("dims.txt").read())  # needs running code: not a usable call
'''

TEST = '''
import torch
from pkg import Net


def test_it(tmp_path):
    out = Net(5)(torch.randint(0, 10, (3, 5)), mask=torch.ones(3, 5, dtype=torch.bool))


class TestNet:
    def test_width(self):
        Net(dim=7, use_bias=False)
'''


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"))


def test_calls_from_main_blocks_docstrings_and_tests(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "from .net import Net\n", "pkg/net.py": NET, "tests/test_net.py": TEST,
                      "pkg/config.py": "class Cfg:\n    def __init__(self, n=3):\n        self.n = n\n"})
    found = calls.find(tmp_path, ["pkg.net.Net"], [tmp_path])
    usages = {u["where"]: u for u in found.usages["pkg.net.Net"]}
    assert set(usages) == {"pkg/net.py:20", "pkg/net.py:6 (docstring)", "tests/test_net.py:6",
                           "tests/test_net.py:11"}
    main = usages["pkg/net.py:20"]
    assert main["args"] == [{"op": "value", "value": 16}]  # n * 2, n bound earlier in the block
    assert main["kwargs"] == {"cfg": {"op": "call", "target": "pkg.config.Cfg", "args": [],
                                      "kwargs": {"n": {"op": "value", "value": 3}}}}
    assert main["inputs"] == {"args": [{"op": "randn", "shape": [4, 16]}], "kwargs": {}}  # .to(device) dropped
    docstring = usages["pkg/net.py:6 (docstring)"]
    assert docstring["kwargs"] == {"use_bias": {"op": "value", "value": True}}
    assert docstring["inputs"]["args"] == [{"op": "randn", "shape": [2, 4]}]
    test = usages["tests/test_net.py:6"]  # through the package's re-export
    assert test["inputs"]["args"] == [{"op": "randint", "low": 0, "high": 10, "shape": [3, 5]}]
    assert test["inputs"]["kwargs"] == {"mask": {"op": "ones", "shape": [3, 5], "dtype": "bool"}}
    assert usages["tests/test_net.py:11"]["kwargs"] == {"dim": {"op": "value", "value": 7},
                                                        "use_bias": {"op": "value", "value": False}}
    assert str(tmp_path / "tests" / "test_net.py") in found.files


def test_a_call_names_the_file_its_callee_is_imported_from(tmp_path):
    """Two experiment directories, each a root with its own `model.py` and a same-named class:
    the call in one directory's script is that directory's class, never the other's."""
    model = "import torch.nn as nn\n\nclass Loss(nn.Module):\n    def __init__(self, weight=None):\n        super().__init__()\n"
    script = "from model import Loss\n\nif __name__ == '__main__':\n    Loss(weight=None)\n"
    _write(tmp_path, {"a/model.py": model, "a/train.py": script, "b/model.py": model})
    found = calls.find(tmp_path, ["model.Loss"], [tmp_path / "a", tmp_path / "b"])
    [usage] = found.usages["model.Loss"]
    assert usage["file"] == str((tmp_path / "a" / "model.py").resolve())


def test_a_script_s_top_level_build_is_read_with_the_cast_it_applies(tmp_path):
    """`lstm = LSTM(input_size=INPUT_SIZE).double()` at the top of a training script: its
    constants and its cast (the outermost one the chain applies) are read, never run."""
    _write(tmp_path, {
        "model.py": "import torch.nn as nn\n\nclass LSTM(nn.Module):\n    def __init__(self, input_size, hidden=4):\n"
                    "        super().__init__()\n",
        "train.py": """
            import torch
            from model import LSTM

            INPUT_SIZE = 21
            lstm = LSTM(input_size=INPUT_SIZE).double()
            other = LSTM(3, hidden=2).to(torch.float16).float().to("cpu")
            half = LSTM(5).to(dtype=torch.bfloat16)
            plain = LSTM(7).eval()
            """})
    found = calls.find(tmp_path, ["model.LSTM"], [tmp_path])
    usages = {u["where"]: u for u in found.usages["model.LSTM"]}
    assert usages["train.py:5"]["kwargs"] == {"input_size": {"op": "value", "value": 21}}
    assert usages["train.py:5"]["dtype"] == "float64" and usages["train.py:5"]["in_code"]
    assert usages["train.py:6"]["dtype"] == "float32"  # the last cast wins: .float() after .to(torch.float16)
    assert usages["train.py:7"]["dtype"] == "bfloat16"
    assert "dtype" not in usages["train.py:8"]


def test_calls_are_read_never_run(tmp_path):
    marker = tmp_path / "ran"
    _write(tmp_path, {"m.py": f'''
        import torch
        from torch import nn

        class M(nn.Module):
            pass

        if __name__ == "__main__":
            open({str(marker)!r}, "w").write("ran")
            M()(torch.randn(2, 3))
        '''})
    found = calls.find(tmp_path, ["m.M"], [tmp_path])
    assert found.usages["m.M"][0]["inputs"] == {"args": [{"op": "randn", "shape": [2, 3]}], "kwargs": {}}
    assert not marker.exists()


# -- which attributes a forward reads ------------------------------------------------------------


class _Base(nn.Module):
    def helper(self, x):
        return x * self.scale


class _Reader(_Base):
    def __init__(self):
        super().__init__()
        self.scale = torch.ones(2)
        self.table = torch.ones(2)
        self.handed = torch.ones(2)
        self.child = nn.Identity(self.handed)
        self.unused = torch.ones(2)

    def forward(self, x):
        return self.helper(x) + getattr(self, "table")

    def sample(self):
        return self.unused


class _NoForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.ones(2)

    def sample(self):
        return self.table


class _YOLOLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.anchors = torch.ones(3, 2)
        self.bias = torch.ones(2)
        self.nx = 0

    def forward(self, p):
        if self.nx != p.shape[-1]:
            _create_grids(self, p.shape[-1])
        return p * self.anchor_vec.sum()

    def get_action(self, dist):
        return dist.sample() * self.bias


def _create_grids(layer, n):
    layer.nx = n
    layer.anchor_vec = layer.anchors / n


def test_forward_reads_follow_the_functions_forward_hands_self_to():
    assert reads.forward_reads(_YOLOLayer, ["anchors", "bias"]) == {"anchors": True, "bias": False}


def test_methods_that_neither_forward_nor_the_constructor_reach_are_named_as_unrun_readers():
    assert reads.unrun_readers(_YOLOLayer, ["anchors", "bias"]) == {"bias": ["get_action"]}
    assert reads.unrun_readers(_Reader, ["scale", "table", "handed", "unused"]) == {"unused": ["sample"]}


class _Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.anchors = torch.ones(3, 2)
        self.scale = torch.ones(2)
        self.size = 0

    def forward(self, p, targets=None):
        p = p.to(self.scale.device) * 2
        if self.size != p.shape[-1]:
            _make_grids(self, p.shape[-1])
            if p.is_cuda:
                self.anchor_wh = self.anchor_wh.cuda()
        if targets is not None:
            return _match(targets, self.anchor_vec)
        scale = self.scale
        if p.shape[0] > 4:
            scale = torch.ones(2)
            scale = scale.double()
        if p.shape[-1] != self.scale.shape[0] and len(self.scale) > 0:
            raise ValueError(f"{self.scale} does not fit")
        return p * self.anchor_wh.sum() * scale


def _make_grids(layer, n):
    layer.size = n
    layer.anchor_vec = layer.anchors / n
    layer.anchor_wh = layer.anchor_vec.view(1, 3, 2)


def _match(targets, anchors):
    return targets * anchors


def _site_texts(cls: type, attr: str) -> list[tuple[str, bool]]:
    return [(linecache.getline(filename, first).strip(), guarded)
            for filename, first, _last, _method, guarded in reads.read_sites(cls, [attr])[attr]]


def test_read_sites_follow_what_forward_derives_from_the_attribute():
    # the anchors' vector and its view, derived in a function forward hands self to, are read
    # in the training branch and in a branch only a device test opens
    sites = _site_texts(_Detector, "anchors")
    assert ("return _match(targets, self.anchor_vec)", False) in sites
    assert ("self.anchor_wh = self.anchor_wh.cuda()", True) in sites
    assert ("layer.anchor_vec = layer.anchors / n", False) in sites
    assert ("return p * self.anchor_wh.sum() * scale", False) in sites


def test_a_local_is_a_read_site_only_where_every_binding_of_it_is_a_view_of_the_attribute():
    sites = [text for text, _ in _site_texts(_Detector, "scale")]
    # `scale` is the buffer in one arm and a fresh tensor in the other; `p`, forward's input, is
    # never the buffer, though it is moved to the buffer's device; a test of its shape and the
    # error it raises read nothing a cast or a move changes
    assert sites == ["p = p.to(self.scale.device) * 2", "scale = self.scale"]


def test_forward_reads_follow_helpers_strings_and_what_the_constructor_hands_on():
    found = reads.forward_reads(_Reader, ["scale", "table", "handed", "unused"])
    assert found == {"scale": True, "table": True, "handed": True, "unused": False}
    assert reads.forward_reads(_NoForward, ["table"]) == {"table": False}
    assert reads.forward_reads(nn.Linear, ["weight"]) == {"weight": True}  # source of torch's own: assumed read


def test_channel_statistics_and_float_lists_are_made_up_as_floats():
    class Normalize(nn.Module):
        def __init__(self, means: typing.List[float], sds, scales: typing.List[float], sizes: typing.List[int]):
            super().__init__()

    parameters = inspect.signature(Normalize).parameters
    hints = typing.get_type_hints(Normalize.__init__)

    def first(name):
        return synth.parameter_values(Normalize, parameters[name], hints.get(name, parameters[name].annotation))[0][0]

    # integers would make an integer buffer, which no cast touches: no evidence about casts
    assert first("means") == [0.485, 0.456, 0.406]
    assert first("sds") == [0.229, 0.224, 0.225]
    assert all(isinstance(v, float) for v in first("scales"))
    assert all(isinstance(v, int) for v in first("sizes"))


def test_a_sequence_too_short_for_a_kernel_is_made_again_longer():
    class Onsets(nn.Module):  # a stride-2 conv, then a kernel of 10: 16 steps are too few
        def __init__(self):
            super().__init__()
            self.down = nn.Conv1d(1, 4, kernel_size=2, stride=2)
            self.conv = nn.Conv1d(4, 4, kernel_size=10)
            self.hidden = torch.zeros(1, 4)

        def forward(self, x):
            return self.conv(self.down(x)).mean(-1) + self.hidden

    model = Onsets()
    short = next(c for c in synth.input_candidates(model) if len(c["args"][0]["shape"]) == 3)
    message = _error(model, short)
    assert "Kernel size can't be greater than actual input size" in message
    repaired = synth.repaired_candidates(short, message)
    assert [c["args"][0]["shape"][2:] for c in repaired] == [[64], [256]]
    assert all(c["args"][0]["shape"][:2] == short["args"][0]["shape"][:2] for c in repaired)
    assert _runs(model, repaired[0])


def test_a_loss_built_for_one_batch_size_gets_inputs_of_that_batch():
    class PairLoss(nn.Module):  # NT-Xent: its mask pairs the 2 x batch_size rows of one batch
        def __init__(self, batch_size=8):
            super().__init__()
            self.batch_size = batch_size
            n = 2 * batch_size
            self.mask = ~torch.eye(n, dtype=torch.bool)

        def forward(self, z_i, z_j):
            n = 2 * self.batch_size
            z = torch.cat((z_i, z_j), dim=0)
            sim = z @ z.T
            positives = torch.cat((torch.diag(sim, self.batch_size), torch.diag(sim, -self.batch_size))).reshape(n, 1)
            return (sim[self.mask].reshape(n, -1).logsumexp(1, keepdim=True) - positives).mean()

    model = PairLoss()
    candidates = synth.input_candidates(model)
    assert not _runs(model, candidates[0])  # a batch of 2 has no pairs at offset 8
    first = _first_that_runs(model)
    assert [spec["shape"][0] for spec in first["args"]] == [8, 8]
    assert first["args"][0] == first["args"][1]


def test_inputs_are_made_again_at_the_width_a_matrix_product_asks_for():
    class Excitable(nn.Module):  # a linear layer of the repository's own: nothing sizes its input
        def __init__(self, in_size=8, out_size=4):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(out_size, in_size))

        def forward(self, x):
            return nn.functional.linear(x, self.weight)

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = Excitable()
            self.gate = torch.ones(4)

        def forward(self, x):
            return self.linear(x) * self.gate

    model = Head()
    wide = next(c for c in synth.input_candidates(model) if c["args"][0]["shape"] == [2, 16])
    message = _error(model, wide)
    assert "mat1 and mat2 shapes cannot be multiplied (2x16 and 8x4)" in message
    repaired = synth.repaired_candidates(wide, message)
    assert repaired[0]["args"][0] == {"op": "randn", "shape": [2, 8]}
    assert _runs(model, repaired[0])


def test_a_recurrent_state_built_for_batch_one_gets_inputs_of_batch_one():
    class Tagger(nn.Module):  # the state is held for one sentence at a time, batch first or not
        def __init__(self, batch_first):
            super().__init__()
            self.lstm = nn.LSTM(8, 8, batch_first=batch_first)
            self.hidden = (torch.zeros(1, 1, 8), torch.zeros(1, 1, 8))

        def forward(self, x):
            return self.lstm(x, self.hidden)[0]

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(8, 8)
            self.h0 = torch.zeros(1, 1, 8)

        def forward(self, x):
            return self.gru(x, self.h0)[0]

    for model, batch_dim in ((Tagger(True), 0), (Tagger(False), 1), (Encoder(), 1)):
        made = synth.input_candidates(model)[0]
        message = _error(model, made)
        assert "Expected hidden" in message
        repaired = synth.repaired_candidates(made, message)
        assert len(repaired) == 1 and repaired[0]["args"][0]["shape"][batch_dim] == 1, (model, repaired)
        assert _runs(model, repaired[0])
    # the error of a state that matches no dimension of the input gives nothing to try
    assert synth.repaired_candidates({"args": [{"op": "randn", "shape": [2, 7, 8]}], "kwargs": {}},
                                     "Expected hidden size (1, 3, 8), got [1, 1, 8]") == []


def test_a_number_named_like_a_float_only_where_a_word_starts_with_its_fragment():
    class Table(nn.Module):
        def __init__(self, max_time_steps, embedding_size, layer_norm_eps, dropRate, num_steps):
            super().__init__()
            self.table = torch.zeros(max_time_steps, embedding_size)

    parameters = inspect.signature(Table).parameters

    def first(name):
        return synth.parameter_values(Table, parameters[name], parameters[name].annotation)[0][0]

    # the `eps` inside `steps` is no epsilon: a size, an integer, so torch.zeros(...) builds
    assert isinstance(first("max_time_steps"), int) and isinstance(first("num_steps"), int)
    assert first("layer_norm_eps") == 1e-5 and isinstance(first("dropRate"), float)
    Table(first("max_time_steps"), first("embedding_size"), 1e-5, 0.1, 2)


def test_a_recurrent_layer_that_names_its_input_size_gets_inputs_of_that_size():
    # torch's own check (nn.RNN, LSTM, GRU and the repositories' copies of it) names the size
    class Reader(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(3, 8, batch_first=True)
            self.scale = torch.ones(8)

        def forward(self, x):
            return self.rnn(x)[0] * self.scale

    model = Reader()
    candidate = {"args": [{"op": "randn", "shape": [2, 7, 16]}], "kwargs": {}}
    message = _error(model, candidate)
    assert "input.size(-1) must be equal to input_size. Expected 3, got 16" in message
    repaired = synth.repaired_candidates(candidate, message)
    assert repaired[0]["args"][0] == {"op": "randn", "shape": [2, 7, 3]}
    assert _runs(model, repaired[0])


def test_strings_the_constructor_compares_a_parameter_with_are_its_made_up_values():
    class GANLoss(nn.Module):
        def __init__(self, gan_mode, target=1.0):
            super().__init__()
            if gan_mode == "ls":
                self.loss = nn.MSELoss()
            elif gan_mode in ("original", "hinge"):
                self.loss = nn.BCEWithLogitsLoss()
            else:
                raise ValueError(f"unexpected gan_mode {gan_mode}")
            self.register_buffer("real", torch.tensor(target))

    parameter = inspect.signature(GANLoss).parameters["gan_mode"]
    values = [v for v, _ in synth.parameter_values(GANLoss, parameter, parameter.annotation)]
    assert values == ["ls", "original", "hinge"]
    assert all(isinstance(GANLoss(v).loss, nn.Module) for v in values)  # each builds; a number would raise


def test_strings_a_kept_parameter_is_compared_with_where_it_is_used_are_its_made_up_values():
    class Head(nn.Module):
        def __init__(self, arc):
            super().__init__()
            self.arc = arc
            self.anchors = torch.ones(3, 2)

        def forward(self, x):
            if "default" in self.arc:  # `in` of a number raises TypeError
                return x.sigmoid() * self.anchors.sum()
            if self.arc == "BCE":
                return x * self.anchors.sum()
            return x

    parameter = inspect.signature(Head).parameters["arc"]
    values = [v for v, _ in synth.parameter_values(Head, parameter, parameter.annotation)]
    assert values[:2] == ["default", "BCE"]
    assert torch.equal(Head(values[0])(torch.zeros(2)), torch.full((2,), 3.0))


def test_a_target_forward_one_hot_encodes_is_class_indices_with_a_score_per_class():
    class OneHotFocal(nn.Module):
        def __init__(self, num_classes=5):
            super().__init__()
            self.num_classes = num_classes
            self.alpha = torch.full((num_classes,), 0.25)

        def forward(self, logits, targets):
            one_hot = F.one_hot(targets.long(), num_classes=self.num_classes).float()
            bce = F.binary_cross_entropy_with_logits(logits, one_hot, reduction="none")
            return (self.alpha * bce).mean()

    made = synth.input_candidates(OneHotFocal())
    assert made[0]["args"] == [{"op": "randn", "shape": [2, 5]}, {"op": "randint", "high": 5, "shape": [2]}]
    assert _runs(OneHotFocal(), made[0])
    assert not _runs(OneHotFocal(), made[1])  # the same shapes for both, as for other losses


def test_a_size_handed_to_forward_beside_the_data_is_a_pair_of_sides_or_one_side():
    class YoloHead(nn.Module):  # `forward(p, img_size)`: the image's size, as the detector's caller hands it
        def __init__(self):
            super().__init__()
            self.anchors = torch.ones(3, 2)

        def forward(self, p, img_size):
            stride = max(img_size) / p.shape[-1]
            return p * stride * self.anchors.sum()

    class SquareYoloHead(YoloHead):  # the side of a square image, one number
        def forward(self, p, img_size):
            return p * (img_size / p.shape[-1]) * self.anchors.sum()

    for head in (YoloHead(), SquareYoloHead()):
        made = synth.input_candidates(head)
        sizes = [c["args"][1] for c in made]
        assert {"op": "value", "value": [synth.GIVEN_SIDE] * 2} in sizes
        assert {"op": "value", "value": synth.GIVEN_SIDE} in sizes
        assert all(size["op"] == "value" for size in sizes)
        assert any(_runs(head, c) for c in made)


def test_a_view_that_splits_one_dimension_of_the_input_gets_that_dimension_whole():
    class YoloLayer(nn.Module):  # (bs, 255, ny, nx) viewed as (bs, 3 anchors, 85 outputs, ny, nx)
        def __init__(self):
            super().__init__()
            self.anchors = torch.ones(3, 2)

        def forward(self, p):
            bs, _, ny, nx = p.shape
            return p.view(bs, 3, 13, ny, nx) * self.anchors.view(1, 3, 1, 1, 2)[..., :1]

    class Attention(nn.Module):  # (B, N, C) viewed as (B, N, heads, C // heads)
        def __init__(self):
            super().__init__()
            self.scale = torch.tensor(0.125)

        def forward(self, x):
            b, n, _ = x.shape
            q = x.view(b, n, 4, 8).transpose(1, 2)
            return (q @ q.transpose(-1, -2) * self.scale).softmax(-1)

    for model, wrong, wanted in ((YoloLayer(), [2, 64, 16, 16], [2, 39, 16, 16]), (Attention(), [2, 7, 16], [2, 7, 32])):
        candidate = {"args": [{"op": "randn", "shape": wrong}], "kwargs": {}}
        message = _error(model, candidate)
        assert "is invalid for input of size" in message
        repaired = synth.repaired_candidates(candidate, message)
        assert repaired[0]["args"][0]["shape"] == wanted, repaired
        assert _runs(model, repaired[0])


def test_keys_a_constructor_takes_out_of_its_kwargs_are_made_up_like_parameters():
    class Normalise(nn.Module):
        def __init__(self, channels, **kwargs):
            super().__init__()
            self.adj = kwargs["adj"]  # required: a KeyError without it
            self.mean = kwargs.get("mean")  # None by default, like a parameter defaulting to None
            self.clip = kwargs.get("clip", 10.0)  # a default of its own: left to it
            self.conv = nn.Conv2d(channels, channels, 1)

    assert synth.keyword_reads(Normalise) == ["adj"]
    assert synth.keyword_reads(Normalise, optional=True) == ["adj", "mean"]
    plain = synth.argument_candidates(Normalise)
    assert plain and all(set(c.kwargs) == {"channels", "adj"} for c in plain)
    assert all(set(c.kwargs) == {"channels", "adj", "mean"} for c in synth.argument_candidates(Normalise, none_defaults=True))


def test_a_count_named_no_of_is_a_number_not_a_switch():
    class ClassBalancedLoss(nn.Module):
        def __init__(self, samples_per_cls, no_of_classes, no_grad=False):
            super().__init__()
            self.weights = torch.ones(no_of_classes) / no_of_classes
            self.no_grad = no_grad

    parameters = inspect.signature(ClassBalancedLoss).parameters
    counts = [v for v, _ in synth.parameter_values(ClassBalancedLoss, parameters["no_of_classes"], inspect.Parameter.empty)]
    assert counts and all(type(v) is int and v > 1 for v in counts), counts
    switches = [v for v, _ in synth.parameter_values(ClassBalancedLoss, parameters["no_grad"], inspect.Parameter.empty)]
    assert switches == [False, True]


def test_a_staticmethod_forward_calls_hands_on_no_self():
    class Loss(nn.Module):  # `focal_loss(labels, ...)` is data handed to torch, not the module
        def __init__(self):
            super().__init__()
            self.effective_num = torch.ones(3)
            self.weights = 1.0 / self.effective_num

        def forward(self, logits, labels):
            return self.focal_loss(labels, logits, self.weights)

        @staticmethod
        def focal_loss(labels, logits, alpha):
            return (alpha * nn.functional.binary_cross_entropy_with_logits(logits, labels, reduction="none")).mean()

    assert reads.forward_reads(Loss, ["effective_num", "weights"]) == {"effective_num": False, "weights": True}


def test_an_argument_whose_size_the_constructor_calls_is_made_up_as_a_tensor():
    class Completion(nn.Module):  # `M.size()`: called, so a tensor (a numpy array's .size is a number)
        def __init__(self, M, p):
            super().__init__()
            self.m, self.n = M.size()
            self.p = p
            self.p_len = p.size(0)

    parameter = inspect.signature(Completion).parameters["M"]
    values = [v for v, _ in synth.parameter_values(Completion, parameter, inspect.Parameter.empty)]
    assert values and all(isinstance(v, torch.Tensor) for v in values), values
    assert Completion(torch.ones(3, 4), torch.ones(2)).n == 4


def test_sizes_of_a_legacy_constructor_are_integers_not_data():
    class SkeletonConv(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size):
            super().__init__()
            self.weight = torch.Tensor(out_channels, in_channels, kernel_size)  # sizes
            self.scale = torch.Tensor([out_channels])  # data: a float keeps the cast checks meaningful

    parameters = inspect.signature(SkeletonConv).parameters
    made = {name: synth.parameter_values(SkeletonConv, p, p.annotation)[0][0] for name, p in parameters.items()}
    assert isinstance(made["in_channels"], int) and isinstance(made["kernel_size"], int)
    # out_channels is also data in the second call, but named like a count: an integer still
    assert isinstance(made["out_channels"], int)

    class SkeletonLinear(nn.Module):
        def __init__(self, in_channels, out_channels, values):
            super().__init__()
            self.bias = torch.Tensor(out_channels)  # one size, named like one
            self.values = torch.Tensor(values)  # data: a list handed in

    parameters = inspect.signature(SkeletonLinear).parameters
    made = {name: synth.parameter_values(SkeletonLinear, p, p.annotation)[0][0] for name, p in parameters.items()}
    assert isinstance(made["out_channels"], int) and isinstance(made["values"], float)


def test_a_class_whose_train_override_takes_no_mode_is_still_switched_to_evaluation():
    from codemod.validate.build import evaluation_mode, training_mode

    class Frozen(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Dropout(0.5)

        def train(self):  # freezes a backbone; nn.Module.eval() calls train(False) and raises
            return self

    model = Frozen()
    with pytest.raises(TypeError):
        model.eval()
    evaluation_mode(model)
    assert not model.training and not model.body.training
    training_mode(model)  # the override itself runs: it takes no mode and changes nothing
    assert not model.training


def test_string_options_of_the_repository_command_line_fill_a_made_up_config(tmp_path, monkeypatch):
    (tmp_path / "config.py").write_text(textwrap.dedent("""
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--manifold", type=str, default="PoincareBall")
        parser.add_argument("--use-att", action="store_true", default=False)
        parser.add_argument("--dim", type=int, default=128)
        parser.add_argument("--device", default="cuda:0")
        config_args = {"model": ("HGCN", "which encoder"), "dropout": (0.1, "rate")}
    """))
    monkeypatch.chdir(tmp_path)
    synth._declarations.cache_clear()
    try:
        assert synth.repository_options() == {"manifold": "PoincareBall", "use_att": False, "device": "cuda:0", "model": "HGCN"}
        config = synth.MadeUpConfig()
        # strings and flags from the repository; numbers stay small made-up sizes; never a GPU
        assert (config.manifold, config.model, config.use_att) == ("PoincareBall", "HGCN", False)
        assert config.dim == synth._int_values("dim")[0] and config.device == "cpu"
    finally:
        synth._declarations.cache_clear()


def test_declared_choices_give_a_made_up_config_per_choice_when_the_default_does_not_build(tmp_path, monkeypatch):
    # the command line's default suits another network of the repository; this one builds only
    # from the table it indexes, so a further made-up config takes the other declared choices
    (tmp_path / "config.py").write_text(textwrap.dedent("""
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--aggr", type=str, default="tfmlp", choices=["deepset", "gated_sum", "tfmlp"])
        parser.add_argument("--norm", default="batch", choices=("batch", "layer"))
    """))
    _FACTORY = {"deepset": nn.Identity, "gated_sum": nn.Identity}

    class Gate(nn.Module):
        def __init__(self, args):
            super().__init__()
            self.aggr = _FACTORY[args.aggr]()
            self.norm = args.norm
            self.one = torch.ones(1)

    monkeypatch.chdir(tmp_path)
    synth._declarations.cache_clear()
    try:
        assert synth.repository_choices() == {"aggr": ["deepset", "gated_sum", "tfmlp"], "norm": ["batch", "layer"]}
        candidates = synth.argument_candidates(Gate)
        made = [(c.kwargs["args"].aggr, c.kwargs["args"].norm) for c in candidates]
        # the default first, then each other choice; a shorter list repeats its last one
        assert made == [("tfmlp", "batch"), ("deepset", "layer"), ("gated_sum", "layer")]
        built = []
        for candidate in candidates:
            try:
                built.append(Gate(*candidate.args, **candidate.kwargs))
            except KeyError:
                continue
        assert len(built) == 2 and "aggr='deepset'" in candidates[1].description

        class Kept(nn.Module):  # reads the option through the attribute it keeps the namespace in
            def __init__(self, args):
                super().__init__()
                self.args = args
                self.aggr = _FACTORY[self.args.aggr]()

        assert [c.kwargs["args"].aggr for c in synth.argument_candidates(Kept)] == ["tfmlp", "deepset", "gated_sum"]
    finally:
        synth._declarations.cache_clear()


def test_values_used_as_sequences_are_made_up_as_lists():
    class Noise(nn.Module):  # `*shape`: unpacked, so a sequence of sizes
        def __init__(self, shape, std=0.05):
            super().__init__()
            self.noise = torch.zeros(1, *shape)

    class Pulsar(nn.Module):  # `len(para.channels)` and `self.input_shape[1]` after keeping it
        def __init__(self, para, input_shape):
            super().__init__()
            self.input_shape = input_shape
            self.down = para.stride ** len(para.channels)
            self.out_length = self.input_shape[1] // self.down

    noise = synth.argument_candidates(Noise)[0]
    assert isinstance(noise.kwargs["shape"], tuple)  # a shape: a tuple, which `(n,) + shape` takes too
    Noise(*noise.args, **noise.kwargs)
    pulsar = synth.argument_candidates(Pulsar)[0]
    assert isinstance(pulsar.kwargs["para"].channels, list) and isinstance(pulsar.kwargs["input_shape"], tuple)
    assert "channels=[" in pulsar.description
    Pulsar(*pulsar.args, **pulsar.kwargs)


def test_an_argument_kept_moved_to_a_device_is_made_up_as_a_tensor():
    class Demapper(nn.Module):  # `.to()` alone would fit a made-up object with a `to` method too
        def __init__(self, const, device):
            super().__init__()
            self.const = const.to(device=device)

    candidate = synth.argument_candidates(Demapper)[0]
    assert isinstance(candidate.kwargs["const"], torch.Tensor)
    assert isinstance(Demapper(*candidate.args, **candidate.kwargs).const, torch.Tensor)


class _BaseModel(nn.Module):
    def __init__(self, name, num_nodes, input_dim):
        super().__init__()
        self.name = name
        self.num_nodes = num_nodes
        self.input_dim = input_dim


class _Forwarding(_BaseModel):  # its own defaults do not build it: **args must reach the base
    def __init__(self, dropout=0.3, **args):
        super().__init__(**args)
        self.lin = nn.Linear(self.input_dim, self.input_dim)
        self.mask = torch.ones(self.num_nodes)


def test_keywords_a_constructor_hands_to_its_repository_base_are_made_up_for_the_base():
    assert synth.forwards_keywords(_Forwarding) and not synth.forwards_keywords(_BaseModel)
    with pytest.raises(TypeError):
        _Forwarding()
    candidates = synth.argument_candidates(_Forwarding, none_defaults=True)
    assert candidates and set(candidates[0].kwargs) == {"name", "num_nodes", "input_dim"}
    model = _Forwarding(*candidates[0].args, **candidates[0].kwargs)
    assert model.mask.shape == (model.num_nodes,)


class _WeightedLoss(nn.Module):
    def __init__(self, weight=None, reduction="mean"):
        super().__init__()
        self.weight = weight
        self.reduction = reduction

    def forward(self, inputs, targets):
        return nn.functional.cross_entropy(inputs, targets, weight=self.weight, reduction=self.reduction)


def test_a_kept_argument_a_functional_loss_takes_as_its_weights_is_given_a_tensor():
    candidates = synth.argument_candidates(_WeightedLoss, none_defaults=True)
    assert candidates and isinstance(candidates[0].kwargs["weight"], torch.Tensor)


def test_data_handed_to_from_numpy_or_to_a_parameter_is_made_up_as_such():
    class Decoder(nn.Module):
        def __init__(self, topology=None, Auw=None, clusters=None):
            super().__init__()
            if topology:
                self.Auw = torch.from_numpy(Auw)
            self.clusters = nn.Parameter(clusters)

    candidates = synth.argument_candidates(Decoder, none_defaults=True)
    kwargs = candidates[0].kwargs
    assert type(kwargs["Auw"]).__module__ == "numpy" and isinstance(kwargs["clusters"], torch.Tensor)
    Decoder(**kwargs)


def test_a_flag_of_forward_gets_both_values():
    class GANLoss(nn.Module):
        def forward(self, prediction, target_is_real):
            target = torch.ones_like(prediction) if target_is_real else torch.zeros_like(prediction)
            return ((prediction - target) ** 2).mean()

    parameter = inspect.signature(GANLoss.forward).parameters["target_is_real"]
    specs = synth._param_specs(parameter, parameter.annotation, None, synth._Model(GANLoss()))
    assert specs == [{"op": "value", "value": True}, {"op": "value", "value": False}]


def test_a_count_kept_as_tensor_data_is_still_an_integer():
    class NCEAverage(nn.Module):
        def __init__(self, inputSize, K, T=0.07, momentum=0.5):
            super().__init__()
            self.register_buffer("params", torch.tensor([K, T, -1, momentum]))
            self.register_buffer("memory", torch.rand(K, inputSize))

    parameters = inspect.signature(NCEAverage).parameters
    k = synth.parameter_values(NCEAverage, parameters["K"], parameters["K"].annotation)[0][0]
    assert isinstance(k, int)
    NCEAverage(4, k)  # torch.rand(K, ...) takes it; a float would raise


def test_a_logger_argument_is_made_up_as_a_logger_that_writes_nowhere():
    import logging

    class Seq2Seq(nn.Module):
        def __init__(self, dim, logger):
            super().__init__()
            logger.debug("building the decoder")  # an int here would raise
            self.decoder = nn.Linear(dim, dim)

    made = synth.argument_candidates(Seq2Seq)
    assert made and isinstance(made[0].kwargs["logger"], logging.Logger)
    assert "logger=a logging.Logger" in made[0].description
    Seq2Seq(*made[0].args, **made[0].kwargs)  # builds


def test_a_none_default_kept_and_used_as_a_tensor_is_made_up_as_a_tensor():
    import inspect

    class WeightedLoss(nn.Module):
        def __init__(self, eps=1e-8, weight=None):
            super().__init__()
            self.eps = eps
            self.weight = weight

        def forward(self, x, y):
            loss = y * torch.log(x.clamp(min=self.eps))
            if self.weight is not None:
                loss = loss * self.weight.view(1, -1)
            return -loss.mean()

    class Plain(nn.Module):  # kept, but never used as only a tensor is
        def __init__(self, weight=None):
            super().__init__()
            self.weight = weight

    weight = inspect.signature(WeightedLoss).parameters["weight"]
    values = synth.parameter_values(WeightedLoss, weight, inspect.Parameter.empty)
    assert values and all(isinstance(v, torch.Tensor) for v, _ in values)
    plain = synth.parameter_values(Plain, inspect.signature(Plain).parameters["weight"], inspect.Parameter.empty)
    assert not any(isinstance(v, torch.Tensor) for v, _ in plain)


def test_a_method_the_constructor_calls_on_an_argument_is_made_up_as_one():
    class Seq2Seq(nn.Module):
        def __init__(self, config, voc):
            super().__init__()
            self.eos = voc.get_id("<eos>")  # a made-up int here would not be callable
            self.embed = nn.Embedding(config.vocab_size, 4)
            self.mask = torch.ones(self.eos + 1)

    made = synth.argument_candidates(Seq2Seq)
    assert made, "no made-up arguments"
    model = Seq2Seq(*made[0].args, **made[0].kwargs)
    assert isinstance(model.eos, int) and model.mask.shape == (model.eos + 1,)


class _Camera(nn.Module):
    """A Gaussian-splatting camera: numpy pose, an image tensor it clamps, matrices from them."""

    def __init__(self, uid, R, T, image):
        super().__init__()
        self.uid = uid
        self.original_image = image.clamp(0.0, 1.0)[:3, :, :]
        view = torch.eye(4)
        view[:3, :3] = torch.from_numpy(R.transpose()).float()
        view[:3, 3] = torch.from_numpy(T).float()
        self.world_view_transform = view.transpose(0, 1)


def test_a_camera_gets_a_numpy_pose_and_an_image_it_can_clamp():
    (first, *_) = synth.argument_candidates(_Camera)
    camera = _Camera(*first.args, **first.kwargs)
    assert camera.original_image.shape[0] == 3 and torch.equal(camera.world_view_transform, torch.eye(4))
    # R and T only as a pair: a lone T is a number (a temperature, a sequence length)
    assert synth._camera_pose(_IoULoss, "T") is None


def test_a_constructor_argument_whose_shape_is_read_is_made_up_as_a_matrix():
    class Unrolled(nn.Module):
        def __init__(self, h, iterations):
            super().__init__()
            self.rows, self.cols = h.shape[0], h.shape[1]
            self.psf = torch.as_tensor(h, dtype=torch.float32)
            self.steps = iterations

    first, *_ = synth.argument_candidates(Unrolled)
    assert isinstance(first.kwargs["h"], torch.Tensor) and first.kwargs["h"].dim() == 2
    Unrolled(**first.kwargs)  # it builds


def test_a_required_argument_kept_under_another_name_and_used_as_a_tensor_is_made_up_as_one():
    class Competition(nn.Module):
        def __init__(self, phases, competition_mask):
            super().__init__()
            self.comp_mask = competition_mask
            self.embed = nn.Linear(phases, phases)

        def forward(self, x):
            return self.embed(x).unsqueeze(1) * self.comp_mask.tile((x.shape[0], 1, 1))

    first, *_ = synth.argument_candidates(Competition)
    assert isinstance(first.kwargs["competition_mask"], torch.Tensor)
    assert not isinstance(first.kwargs["phases"], torch.Tensor)


def test_a_none_default_handed_to_a_torch_losss_weights_is_made_up_as_a_tensor():
    class MaskedNLL(nn.Module):
        def __init__(self, weight=None):
            super().__init__()
            self.weight = weight
            self.loss = nn.NLLLoss(weight=weight, reduction="sum")

        def forward(self, pred, target, mask):
            return self.loss(pred * mask.view(-1, 1), target) / torch.sum(self.weight[target] * mask.view(-1))

    sources = synth.argument_candidates(MaskedNLL, none_defaults=True)  # a further build gives the None default a value
    assert any(isinstance(c.kwargs.get("weight"), torch.Tensor) for c in sources)


def test_a_path_argument_is_made_up_as_a_path_nothing_can_open():
    """No made-up value is a file a constructor can read, and a number handed to open() opens
    one of the worker's own descriptors: a path argument is made up under os.devnull, which
    nothing can read or create. A class that reads it is not built (it is "not validated",
    with the snippet to record real ones); one that only keeps it is."""

    class Words(torch.nn.Module):
        def __init__(self, vocab_path, hidden_size=50):
            super().__init__()
            with open(vocab_path, "rb") as handle:
                self.size = len(handle.read())

    class Sized(torch.nn.Module):
        def __init__(self, hidden_size):
            super().__init__()
            self.hidden = torch.zeros(hidden_size)

    class Saver(torch.nn.Module):  # keeps a folder to save to later; `bi_dir` only looks like one
        def __init__(self, save_dir, bi_dir):
            super().__init__()
            self.save_dir, self.bi_dir = save_dir, bi_dir
            self.scale = torch.ones(1)

    made = synth.argument_candidates(Words)
    assert made and made[0].kwargs["vocab_path"].startswith(os.devnull + os.sep), made
    with pytest.raises(OSError):
        Words(**made[0].kwargs)
    assert synth.argument_candidates(Sized)
    kept = synth.argument_candidates(Saver)[0]
    assert Saver(**kept.kwargs).save_dir == os.path.join(synth.MADE_UP_PATH_ROOT, "save_dir")


def test_inputs_are_made_again_at_the_rank_and_side_a_repository_check_names():
    class PyramidLoss(nn.Module):  # its own checks: images of 4 or 5 dims, each side past 40
        def __init__(self, channels=3):
            super().__init__()
            self.kernel = torch.ones(channels, 1, 3, 3) / 9

        def forward(self, x, y):
            if x.dim() not in (4, 5):
                raise ValueError(f"Input images should be 4-d or 5-d tensors, but got {x.shape}")
            assert min(x.shape[-2:]) > 40, "Image size should be larger than 40 due to the 2 downsamplings"
            total = 0.0
            for _ in range(3):
                total = total + (nn.functional.conv2d(x - y, self.kernel, groups=x.shape[1]) ** 2).mean()
                x, y = nn.functional.avg_pool2d(x, 2), nn.functional.avg_pool2d(y, 2)
            return total

    model = PyramidLoss()
    pair = {"args": [{"op": "randn", "shape": [2, 3]}, {"op": "randn", "shape": [2, 3]}], "kwargs": {}}
    images = synth.repaired_candidates(pair, _error(model, pair))
    assert images and all(len(c["args"][0]["shape"]) == 4 for c in images), images
    small = next(c for c in images if c["args"][0]["shape"][1] == 3)
    message = _error(model, small)
    assert "larger than 40" in message
    larger = synth.repaired_candidates(small, message)
    assert [c["args"][0]["shape"][2:] for c in larger] == [[48, 48]]
    assert _runs(model, larger[0]) and larger[0]["args"][0] == larger[0]["args"][1], "a pair stays alike"
    # a side past what a made-up image may take is not tried
    assert synth.repaired_candidates(small, "Image size should be larger than 4000") == []


def test_inputs_indexed_past_their_rank_or_length_are_made_again_long_enough():
    class DelayAndSum(nn.Module):  # `x[:, :, 0]`, then gathers samples past any made-up length
        def __init__(self, sensors=4):
            super().__init__()
            self.delays = torch.arange(sensors).view(1, sensors, 1) * 300 + 100

        def forward(self, x):
            x = x.clone()
            x[:, :, 0] = 0
            return torch.gather(x, 2, self.delays.expand(x.size(0), -1, 1)).sum(1)

    model = DelayAndSum()
    matrix = {"args": [{"op": "randn", "shape": [2, 4]}], "kwargs": {}}
    message = _error(model, matrix)
    assert "too many indices for tensor of dimension 2" in message
    signals = synth.repaired_candidates(matrix, message)
    assert signals and all(len(c["args"][0]["shape"]) == 3 for c in signals), signals
    short = next(c for c in signals if c["args"][0]["shape"][:2] == [2, 4])
    message = _error(model, short)
    assert "is out of bounds for dimension 2" in message
    (longer,) = synth.repaired_candidates(short, message)
    assert longer["args"][0]["shape"][:2] == [2, 4] and longer["args"][0]["shape"][2] > 1000
    assert _runs(model, longer)
    # the error names a dimension the first input does not have at that size: nothing to repair
    assert synth.repaired_candidates(short, "index 9 is out of bounds for dimension 0 with size 7") == []
    assert synth.repaired_candidates(short, "too many indices for tensor of dimension 1") == []


def test_inputs_are_first_made_at_the_shapes_forward_s_docstring_gives():
    class Frames(nn.Module):  # nine stacked frames, pooled to one cell: no made-up image fits
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(27, 4, 3)
            self.mean = torch.zeros(1, 27, 1, 1)

        def forward(self, frames, positions):
            """Forward propagation.

            :param frames: (batch_size, 27, 40, 64)
            :param positions: (batch_size, 2) --> the ball's (x, y) in the original image
            """
            pooled = nn.functional.max_pool2d(self.conv(frames - self.mean), (38, 62))
            return pooled.flatten(1) @ torch.ones(4, 2) + positions

    model = Frames()
    first = synth.input_candidates(model)[0]
    assert [spec["shape"] for spec in synth._input_specs(first)] == [[2, 27, 40, 64], [2, 2]], first
    assert _runs(model, first)

    def masked(self, x, mask):
        """
        Args:
            x (Tensor): features of shape [B, T, D]
            mask: (B, T), true where padded
        """

    assert synth.documented_shapes(masked, ["x", "mask"]) == {
        "x": {"op": "randn", "shape": [2, synth.SEQ, 4 * synth.SPATIAL]},
        "mask": {"op": "ones", "shape": [2, synth.SEQ], "dtype": "bool"}}

    def prose(self, x):
        """Moves the point (x, y) by the offset [dx, dy]."""

    assert synth.documented_shapes(prose, ["x"]) == {}


def test_inputs_a_class_docstring_lists_time_first_are_made_at_those_shapes():
    class AdaptiveNeuron(nn.Module):
        """A spiking neuron layer whose membrane potential is set on the first call.

        Inputs:
          I:   (T,B,C,H,W)
          tau: (B,1) or (B,C)  (positive)
        """

        def __init__(self):
            super().__init__()
            self.v = None

        def forward(self, I, tau):
            T, B, C, H, W = I.shape
            decay = torch.exp(-1.0 / tau.clamp_min(1e-3)).view(B, -1, 1, 1)
            if self.v is None:
                self.v = torch.zeros(B, C, H, W)
            for t in range(T):
                self.v = self.v * decay + I[t]
            return self.v

    # forward's own docstring says nothing: the class's does, time before batch
    assert synth.documented_shapes(AdaptiveNeuron.forward, ["I", "tau"], AdaptiveNeuron) == {
        "I": {"op": "randn", "shape": [synth.SEQ, synth.BATCH, 3, 4 * synth.SPATIAL, 4 * synth.SPATIAL]},
        "tau": {"op": "randn", "shape": [synth.BATCH, 1]}}
    assert synth.documented_shapes(AdaptiveNeuron.forward, ["I", "tau"]) == {}
    model = AdaptiveNeuron()
    first = synth.input_candidates(model)[0]
    assert [spec["shape"] for spec in synth._input_specs(first)] == [
        [synth.SEQ, synth.BATCH, 3, 4 * synth.SPATIAL, 4 * synth.SPATIAL], [synth.BATCH, 1]], first
    assert _runs(model, first)


def test_signals_shorter_than_a_sliding_window_are_made_again_long_enough():
    class Loudness(nn.Module):
        """A loudness meter: mean squares of 0.4 s frames of a 44.1 kHz signal (batch x samples)."""

        def __init__(self, sr=44100, block=0.4):
            super().__init__()
            self.frame = int(block * sr)
            self.unfold = nn.Unfold((1, self.frame), stride=(1, self.frame // 4))
            self.weight = torch.ones(1, 1, 5) / 5

        def forward(self, x):
            filtered = nn.functional.conv1d(x.unsqueeze(1), self.weight, padding=2)
            return (self.unfold(filtered.unsqueeze(2)) ** 2).mean(1)

    model = Loudness()
    signal = {"args": [{"op": "randn", "shape": [2, 16]}], "kwargs": {}}
    message = _error(model, signal)
    assert "Given input with spatial size (1, 16), kernel_size=(1, 17640)" in message, message
    longer = synth.repaired_candidates(signal, message)
    assert [c["args"][0]["shape"] for c in longer] == [[2, 32768], [2, 131072]], longer
    assert _runs(model, longer[0])
    # a first input already that long: the window slides over another tensor, nothing to grow
    assert synth.repaired_candidates({"args": [{"op": "randn", "shape": [2, 17640]}], "kwargs": {}}, message) == []


def test_signals_shorter_than_an_stft_s_padding_are_made_again_long_enough():
    class SpectralLoss(nn.Module):
        def __init__(self, n_fft=1024):
            super().__init__()
            self.n_fft = n_fft
            self.window = torch.hann_window(n_fft)

        def forward(self, x, y):
            spec = lambda s: torch.stft(s, self.n_fft, window=self.window, return_complex=True).abs()
            return (spec(x) - spec(y)).abs().mean()

    model = SpectralLoss()
    pair = {"args": [{"op": "randn", "shape": [2, 7]}, {"op": "randn", "shape": [2, 7]}], "kwargs": {}}
    message = _error(model, pair)
    assert "Padding size should be less than the corresponding input dimension" in message
    longer = synth.repaired_candidates(pair, message)
    assert [c["args"][0]["shape"] for c in longer] == [[2, 2048], [2, 8192]], longer
    assert longer[0]["args"][0] == longer[0]["args"][1], "a pair stays alike"
    assert _runs(model, longer[0])


def test_images_are_made_again_at_the_side_whose_feature_maps_a_linear_layer_takes():
    class StateAndAction(nn.Module):  # `fc1` takes 128 channels of 3 x 3; `u` is an action vector
        def __init__(self):
            super().__init__()
            self.convs = nn.Sequential(nn.Conv2d(1, 128, 3, stride=2, padding=1), nn.MaxPool2d(8))
            self.fc1 = nn.Linear(128 * 3 * 3, 8)
            self.fc5 = nn.Linear(4, 8)
            self.scale = torch.tensor([50.0, 50.0, 6.28, 0.14])

        def forward(self, x_cur, u, x_post):
            encode = lambda x: self.fc1(self.convs(x).view(x.shape[0], -1))
            return encode(x_cur) + self.fc5(u) * self.scale.sum() + encode(x_post)

    model = StateAndAction()
    image = {"op": "randn", "shape": [2, 1, 16, 16]}
    three = {"args": [image, image, image], "kwargs": {}}
    message = _error(model, three)
    assert "mat1 and mat2 shapes cannot be multiplied (2x128 and 1152x8)" in message
    larger = synth.repaired_candidates(three, message)
    assert [c["args"][0]["shape"] for c in larger] == [[2, 1, 48, 48]], larger
    assert larger[0]["args"][0] == larger[0]["args"][1] == larger[0]["args"][2], "inputs made alike stay alike"
    message = _error(model, larger[0])
    assert "(96x48 and 4x8)" in message  # now `u`, an image too, meets fc5
    singles = synth.repaired_candidates(larger[0], message)
    assert [[a["shape"] for a in c["args"]] for c in singles[:3]] == [
        [[2, 4], [2, 1, 48, 48], [2, 1, 48, 48]],
        [[2, 1, 48, 48], [2, 4], [2, 1, 48, 48]],
        [[2, 1, 48, 48], [2, 1, 48, 48], [2, 4]],
    ]
    assert [_runs(model, c) for c in singles[:3]] == [False, True, False]


def test_a_made_up_float_that_torch_tensor_refuses_is_made_a_size_then_a_tensor():
    """`torch.Tensor(bins)` of a made-up 0.5 raises "data must be a sequence (got float)": the
    repairs make it a size first (an int: `torch.Tensor(8)` is 8 uninitialised values), then
    each argument tensor; the repaired build runs."""

    class Hashed(nn.Module):
        def __init__(self, in_features, bins):
            super().__init__()
            self.weight = nn.Parameter(torch.Tensor(bins))
            self.index = torch.randint(0, bins, (in_features,))

    candidate = synth.Candidate([], {"in_features": 8, "bins": 0.5}, "in_features=8, bins=0.5")
    with pytest.raises(TypeError) as raised:
        Hashed(**candidate.kwargs)
    repairs = synth.argument_repairs(candidate, raised.value)
    assert repairs[0] == {"int": "bins"} and {"tensor": ["bins", 0]} in repairs
    repaired = synth.repaired(candidate, repairs[:1])
    assert repaired.kwargs["bins"] == synth.SPATIAL and "bins=8" in repaired.description
    assert Hashed(**repaired.kwargs).weight.shape == (synth.SPATIAL,)


def test_a_made_up_tensor_that_from_numpy_refuses_is_made_a_numpy_array():
    """`torch.from_numpy(embedding)` of a made-up tensor raises "expected np.ndarray (got
    Tensor)": the repair hands the same values as a numpy array, and the build runs."""

    class Embedded(nn.Module):
        def __init__(self, embedding):
            super().__init__()
            self.emb = nn.Parameter(torch.from_numpy(embedding[:, :]))

    table = torch.full((8, 8), 0.125)
    candidate = synth.Candidate([], {"embedding": table}, "embedding=full(8x8, 1/8)")
    with pytest.raises(TypeError) as raised:
        Embedded(**candidate.kwargs)
    repairs = synth.argument_repairs(candidate, raised.value)
    assert repairs == [{"numpy": "embedding"}]
    repaired = synth.repaired(candidate, repairs)
    assert "embedding=array of full(8x8, 1/8)" in repaired.description
    assert torch.equal(Embedded(**repaired.kwargs).emb.data, table)
    assert isinstance(candidate.kwargs["embedding"], torch.Tensor)  # the candidate itself is left alone


def test_the_made_up_numbers_named_on_the_failing_lines_are_made_tensors_in_turn(tmp_path, monkeypatch):
    """A constructor that takes indices (`torch.unique(user_indices)`) and hands its data on
    to a helper (`Normalize(X_train, user_indices)`, which indexes `X[...]`): each failing
    build names the argument to repair on its line, or on the constructor's line that called
    the helper, so the repairs follow those names (indices as 0 .. n-1, which index_select
    takes) within the repair budget, where trying every number in turn ran out of it."""
    (tmp_path / "ratings.py").write_text(textwrap.dedent('''\
        import torch
        from torch import nn


        class Normalize:
            def __init__(self, X, user_indices):
                self.means = torch.stack([X[user_indices == i].mean() for i in range(int(user_indices.max()) + 1)])


        class Factorization(nn.Module):
            def __init__(self, X_train, user_indices, item_indices, n_latent, epochs):
                super().__init__()
                self.user_indices = user_indices
                self.item_indices = item_indices
                n_users, n_items = torch.unique(user_indices).shape[0], torch.unique(item_indices).shape[0]
                self.theta = nn.Parameter(torch.zeros(n_users, n_latent))
                self.norm = Normalize(X_train, user_indices)
                self.training_set = X_train - torch.index_select(self.norm.means, 0, user_indices)
    '''))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    cls = importlib.import_module("ratings").Factorization
    names = ["X_train", "user_indices", "item_indices", "n_latent", "epochs"]
    candidate = synth.Candidate([], {name: 8 for name in names}, ", ".join(f"{name}=8" for name in names))
    builds = []
    real = build._synth_build
    monkeypatch.setattr(build, "_synth_build", lambda c, made: builds.append(made.description) or real(c, made))
    repairs, model = build._repairs_that_build_at_all(cls, candidate)
    assert repairs == [{"tensor": ["user_indices", 0]}, {"tensor": ["item_indices", 0]}, {"tensor": ["X_train", 0]}], builds
    assert len(builds) == 4, builds
    assert "user_indices=arange(8)" in builds[-1] and "X_train=ones(8)" in builds[-1]
    assert torch.equal(model.user_indices, torch.arange(8)) and model.training_set.shape == (8,)


def test_a_made_up_number_added_to_a_list_is_made_a_list_and_a_default_no_arm_takes_one_of_the_arms(
        tmp_path, monkeypatch):
    """A skeleton classifier hands its edges and strategy to a graph helper: `connectivity +
    self_link` of a made-up 8 asks for a list (node pairs first), and the default strategy
    ('Uniform') falls into the helper's `else: raise`, whose comparisons name the strings that
    build; the repairs follow both, and the build keeps the adjacency as a tensor."""
    (tmp_path / "skeleton.py").write_text(textwrap.dedent('''\
        import numpy as np
        import torch
        from torch import nn


        class Graph:
            def __init__(self, num_joints, connectivity, strategy):
                self.edge = connectivity + [(i, i) for i in range(num_joints)]
                adjacency = np.zeros((num_joints, num_joints))
                for i, j in self.edge:
                    adjacency[i, j] = adjacency[j, i] = 1
                if strategy == "uniform":
                    self.A = adjacency[None]
                elif strategy in ("distance", "spatial"):
                    self.A = np.stack([adjacency, np.eye(num_joints)])
                else:
                    raise ValueError("Do Not Exist This Strategy")


        class Classifier(nn.Module):
            def __init__(self, num_joints=5, connectivity=None, strategy="Uniform"):
                super().__init__()
                self.graph = Graph(num_joints, connectivity, strategy)
                self.A = torch.tensor(self.graph.A, dtype=torch.float32)
    '''))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    cls = importlib.import_module("skeleton").Classifier
    candidate = synth.Candidate([], {"connectivity": 8}, "connectivity=8")
    repairs, model = build._repairs_that_build_at_all(cls, candidate)
    assert repairs == [{"sequence": ["connectivity", 0]}, {"choice": ["strategy", "uniform"]}], repairs
    assert model.A.shape == (1, 5, 5) and model.A[0, 0, 1] == 1
    shown = synth.repaired(candidate, repairs).description
    assert shown == "connectivity=[(0, 1), (1, 2), (2, 3)], strategy='uniform'", shown
    # the other strings compared before the raise are repairs too; a string it is already given is not
    with pytest.raises(ValueError) as raised:
        cls(connectivity=[(0, 1)], strategy="uniform_")
    given = synth.Candidate([], {"connectivity": [(0, 1)], "strategy": "distance"}, "")
    assert synth.argument_repairs(given, raised.value, cls) == [
        {"choice": ["strategy", "uniform"]}, {"choice": ["strategy", "spatial"]}]
    # without the class, no parameter is known to be given a string
    assert synth.argument_repairs(given, raised.value) == []


@dataclasses.dataclass
class _Grid:
    size_x: int
    size_y: int
    tau: float
    gravity: tuple = (0.0, 0.0)


class _Diffusion(nn.Module):
    """A wrapper around the network it is handed, with a noise schedule as a numpy array, its
    dtype and device as arguments, and a dataclass config whose fields have no defaults."""

    def __init__(self, dtype: torch.dtype, model, betas: np.ndarray, device: torch.device, grid: _Grid):
        super().__init__()
        self.model = model.to(device)
        self.betas = torch.tensor(betas, dtype=dtype)
        self.log_alphas = torch.log(1 - self.betas)
        self.cells = grid.size_x * grid.size_y

    def forward(self, x):
        return self.model(x, torch.zeros(1)) * self.log_alphas.sum()


def test_wrapped_networks_dtypes_devices_arrays_and_configs_with_required_fields_are_made_up():
    """The first made-up candidate builds: float32 for a `torch.dtype`, the CPU for a
    `torch.device`, a numpy ramp in (0, 1) for an `np.ndarray` (a schedule's `log(1 - betas)`
    stays finite), a module returning its input for a wrapped `model`, and the dataclass
    built from made-up values for its required fields."""
    [first, *_] = synth.argument_candidates(_Diffusion)
    model = _Diffusion(*first.args, **first.kwargs)
    assert model.betas.dtype == torch.float32 and torch.isfinite(model.log_alphas).all()
    assert len(set(model.betas.tolist())) == synth.SPATIAL
    assert isinstance(model.model, synth.PassThrough) and model.cells == synth.SPATIAL ** 2
    assert "grid=_Grid(size_x=8, size_y=8, tau=0.5)" in first.description, first.description
    assert "model=a module returning its first input" in first.description
    x = torch.ones(2, 8)
    assert torch.equal(model(x), x * model.log_alphas.sum())
    # casts and moves reach the made-up network's parameter, as they would a real one's
    assert model.double().model.scale.dtype == torch.float64


class _Schedule(nn.Module):
    """No forward: methods that save, fit, or take no data never stand in; the public method
    that reads the most rewritten attributes (through what it calls) does."""

    def __init__(self):
        super().__init__()
        self.betas = torch.linspace(0.1, 0.5, 4)
        self.alphas = 1 - self.betas
        self.scale = torch.ones(4)

    def _extract(self, coef, t):
        return coef[t]

    def q_sample(self, x0, t):
        return self._extract(self.alphas, t) * x0 + self._extract(self.betas, t)

    def rescale(self, x):
        return x * self.scale

    def save_schedule(self, path):
        torch.save(self.betas, path)
        return path

    def fit(self, data):
        return data * self.alphas * self.betas * self.scale

    def summary(self):
        return self.betas.sum() + self.alphas.sum() + self.scale.sum()


def test_the_method_that_stands_in_for_a_missing_forward():
    attrs = ["betas", "alphas", "scale"]
    assert reads.stand_in(_Schedule, attrs) == "q_sample"
    assert reads.stand_in(_Schedule, ["scale"]) == "rescale"
    assert reads.stand_in(nn.Linear, ["weight"]) is None  # a forward of its own
    assert reads.stand_in(_Diffusion, ["betas"]) is None


def test_the_made_up_network_answers_what_a_wrapper_asks_of_it_in_kind():
    """A wrapper reads its network's device (`self.model.get_device`) and calls its parts
    (`self.model.TrajEncoder(sequence=x)`): the made-up network answers with the CPU, float32
    and functions that pass the first tensor through, while its own parameter stays one."""
    net = synth.PassThrough()
    x = torch.ones(2, 3)
    assert net.get_device == torch.device("cpu") and net.dtype == torch.float32
    assert torch.equal(net.TrajEncoder(sequence=x), x) and torch.equal(net(x), x)
    assert [name for name, _ in net.named_parameters()] == ["scale"]
    with pytest.raises(AttributeError):
        net._private_state  # noqa: B018  (private names are not made up)
    assert net.half().scale.dtype == torch.float16


def test_made_up_values_for_union_shape_callable_covariance_and_permutation_annotations():
    class Flow(nn.Module):
        def __init__(self, event_shape: typing.Union[torch.Size, typing.Tuple[int, ...]], g: typing.Callable,
                     cov: torch.Tensor, forward_permutation: torch.Tensor, sizes: typing.Tuple[int, ...]):
            super().__init__()
            self.cov = cov

    parameters = inspect.signature(Flow).parameters
    hints = typing.get_type_hints(Flow.__init__)

    def values(name):
        return [v for v, _ in synth.parameter_values(Flow, parameters[name], hints[name])]

    # a union takes what any of its arms takes: a torch.Size first, then tuples (never lists,
    # which `==` with a shape never matches)
    shapes = values("event_shape")
    assert isinstance(shapes[0], torch.Size) and len(shapes[0]) == 1, shapes
    assert any(type(v) is tuple for v in shapes) and not any(isinstance(v, list) for v in shapes), shapes
    assert all(type(v) is tuple for v in values("sizes"))
    g = values("g")[0]
    x = torch.randn(3)
    assert torch.equal(g(x, [x]), x)  # a function of the data, returning its first input
    # a covariance must be positive definite: the identity first
    assert torch.equal(values("cov")[0], torch.eye(synth.SPATIAL))
    # a permutation indexes: 0 .. n-1 first, which picks every row
    assert torch.equal(values("forward_permutation")[0], torch.arange(synth.SPATIAL))


def test_a_log_domain_method_may_stand_in_for_forward_and_a_logging_one_may_not():
    class Gaussian(nn.Module):
        def __init__(self):
            super().__init__()
            self.constant = torch.tensor(-0.9189)

        def log_metrics(self, x):
            print(x)
            return self.constant

        def log_prob(self, value):
            return -0.5 * value ** 2 + self.constant

    assert reads.stand_in(Gaussian, ["constant"]) == "log_prob"


def test_made_up_lists_a_rewritten_buffer_keeps_are_made_tensors_together_and_shown_whole():
    class Split(nn.Module):
        def __init__(self, which, on):
            super().__init__()
            if len(which) != len(on):
                raise ValueError("as many dimensions transformed as conditioned on")
            self.which = which
            self.on = on

        def forward(self, x):
            return torch.index_select(x, -1, self.which) + torch.index_select(x, -1, self.on)

    first = synth.argument_candidates(Split)[0]
    assert isinstance(first.kwargs["which"], list), first  # a sequence: what `len()` takes
    repairs = build._repairs_that_build(Split, first, ["which", "on"])
    made = synth.repaired(first, repairs)
    # the rewritten buffers refuse a list: both are made tensors, of one length, at once
    assert all(isinstance(made.kwargs[name], torch.Tensor) for name in ("which", "on")), made
    assert len(made.kwargs["which"]) == len(made.kwargs["on"])
    assert "]" not in made.description and made.description.count("=") == 2, made.description


def test_a_made_up_number_unpacked_is_made_a_tuple_of_sizes_or_of_tensors_a_rewritten_buffer_keeps(
        tmp_path, monkeypatch):
    """`h, w = size` and `self.lo, self.hi = bounds` of a made-up 8 raise `cannot unpack
    non-iterable int object`: the argument unpacked on that line is made a tuple of as many
    sizes as there are targets, which a layer sized from them builds with; where the rewritten
    buffers would keep those numbers, a tuple of distinct 0-dim tensors instead."""
    (tmp_path / "unpacked.py").write_text(textwrap.dedent('''\
        import torch
        from torch import nn


        class Patches(nn.Module):
            def __init__(self, size):
                super().__init__()
                h, w = size
                self.proj = nn.Linear(h * w, 4)


        class Bounds(nn.Module):
            def __init__(self, bounds):
                super().__init__()
                self.lo, self.hi = bounds

            def forward(self, x):
                return (x - self.lo) / (self.hi - self.lo)
    '''))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    module = importlib.import_module("unpacked")
    sized = synth.Candidate([], {"size": 8}, "size=8")
    repairs, model = build._repairs_that_build_at_all(module.Patches, sized)
    assert repairs == [{"items": ["size", 2, 0]}], repairs
    assert model.proj.in_features == 8 * 8
    assert synth.repaired(sized, repairs).description == "size=(8, 8)"
    bounded = synth.Candidate([], {"bounds": 8}, "bounds=8")
    # nothing rewritten: the sizes build, and are kept
    assert build._repairs_that_build(module.Bounds, bounded) == [{"items": ["bounds", 2, 0]}]
    # the buffers a rewrite registers would refuse the numbers: the tensors instead
    repairs = build._repairs_that_build(module.Bounds, bounded, ["lo", "hi"])
    assert repairs == [{"items": ["bounds", 2, 1]}], repairs
    made = synth.repaired(bounded, repairs)
    assert made.description == "bounds=(tensor(1.), tensor(2.))"
    lo, hi = made.kwargs["bounds"]
    assert lo.dim() == 0 and hi.dim() == 0 and float(hi - lo) == 1.0
    # a number unpacked on no line of the repository asks for nothing
    assert synth.argument_repairs(bounded, TypeError("cannot unpack non-iterable int object")) == []


def test_an_argument_annotated_with_a_class_of_a_missing_module_is_made_up_from_its_reads():
    from codemod.validate import stubs

    Env = stubs._make("Env", "gymnasium")  # what `gym.Env` is when gymnasium is not installed

    class Agent(nn.Module):
        def __init__(self, env: Env, hidden: int = 8):
            super().__init__()
            self.action_high = torch.tensor(env.action_space.high[0], dtype=torch.float32)
            self.body = nn.Linear(env.observation_space.shape[0], hidden)

    parameter = inspect.signature(Agent).parameters["env"]
    (value, shown), *_ = synth.parameter_values(Agent, parameter, Env)
    assert Agent(value).body.in_features == value.observation_space.shape[0]
    # only its shape read: an array stands for the observation space
    assert shown.startswith("a namespace (action_space=(high=") and "observation_space=array(" in shown, shown
    # an installed class the constructor cannot be handed a made-up value for still gets none
    parameter = inspect.signature(Agent).parameters["env"]
    assert synth.parameter_values(Agent, parameter, np.random.Generator) == []


def test_config_keys_the_class_compares_with_strings_are_made_up_as_those_strings():
    class Encoder(nn.Module):
        def __init__(self, config, args):
            super().__init__()
            self.cell = config["cell"]
            assert self.cell in ["lstm", "gru", "attention"]
            if self.cell == "attention":
                self.mask = torch.triu(torch.ones(4, 4), diagonal=1)
            self.norm = args.norm if args.norm != "none" else "batch"

    made = synth.argument_candidates(Encoder)
    # one build per string, so that the arm only "attention" takes is built too
    assert [c.kwargs["config"]["cell"] for c in made] == ["lstm", "gru", "attention"]
    assert [c.kwargs["args"].norm for c in made] == ["none", "none", "none"]
    assert "'cell': 'lstm'" in made[0].description
    assert hasattr(Encoder(**made[2].kwargs), "mask") and not hasattr(Encoder(**made[0].kwargs), "mask")


def test_input_shapes_a_forward_comment_gives_are_read_until_the_input_is_rebound():
    class Interval(nn.Module):
        def __init__(self):
            super().__init__()
            self.bounds = torch.tensor([0.0, 10.0])

        def forward(self, traj, mat, lengths):  # lengths: [N]
            # traj (N, M, 3), mat (N, M, M, 2)
            traj = traj.sum(-1)
            # traj (N, M) from here on: not what is passed in
            mask = torch.zeros_like(mat[..., 0], dtype=torch.long)
            for i in range(mask.shape[0]):
                mask[i, :lengths[i]] = 1
            return (mat[..., 0] - self.bounds[0]) * mask + traj.unsqueeze(-1)

    found = synth.documented_shapes(Interval.forward, ["traj", "mat", "lengths"])
    assert found == {"traj": {"op": "randn", "shape": [synth.BATCH, synth.SPATIAL, 3]},
                     "mat": {"op": "randn", "shape": [synth.BATCH, synth.SPATIAL, synth.SPATIAL, 2]},
                     "lengths": {"op": "randn", "shape": [synth.BATCH]}}, found
    model = Interval()
    first = synth.input_candidates(model)[0]
    # lengths made up as floats cannot slice: the error names index dtypes, and the repair
    # makes the inputs integers, the last first
    message = _error(model, first)
    assert "only integer tensors of a single element can be converted to an index" in message
    assert any(_runs(model, c) for c in synth.repaired_candidates(first, message))


def test_real_inputs_to_a_complex_network_are_made_complex_as_its_error_asks():
    class ComplexLinear(nn.Module):
        def __init__(self, n=4):
            super().__init__()
            self.weight = nn.Parameter(torch.complex(torch.randn(n, n), torch.randn(n, n)))
            self.offset = torch.zeros(1)

        def forward(self, x):
            return F.linear(x, self.weight) + self.offset

    model = ComplexLinear()
    first = {"args": [{"op": "randn", "shape": [2, 4]}], "kwargs": {}}
    message = _error(model, first)
    assert "same dtype" in message and "complex" in message.lower(), message
    repaired = synth.repaired_candidates(first, message)
    assert repaired[0]["args"][0] == {"op": "randn", "shape": [2, 4], "dtype": "cfloat"}
    assert synth.describe(repaired[0]) == "randn(2x4, cfloat)"
    assert _runs(model, repaired[0])


def _checker(shape):
    mask = torch.ones(shape)
    mask[::2, ::2] = 0
    return mask


def test_a_constructor_argument_named_a_shape_is_made_up_as_a_tuple():
    class Coupling(nn.Module):
        def __init__(self, mask_shape, lattice_shape):
            super().__init__()
            self.mask = _checker(mask_shape)  # handed on: indexed as a grid there
            self.grid = torch.zeros((len(lattice_shape),) + lattice_shape)  # concatenated as a tuple

    made = {name: synth.parameter_values(Coupling, p, p.annotation)[0][0]
            for name, p in inspect.signature(Coupling).parameters.items()}
    assert made == {"mask_shape": (8, 8), "lattice_shape": (8, 8, 8)}, made
    assert Coupling(**made).grid.shape == (3, 8, 8, 8)


def test_a_made_up_list_used_in_arithmetic_is_made_again_as_a_tensor():
    class Fibre(nn.Module):
        def __init__(self, lam_set):
            super().__init__()
            self.channels = len(lam_set)  # a sequence: made up as a list
            self.domega = 1 / lam_set - 1 / 1550.0  # arithmetic: a tensor (or an array) was meant

    candidate = synth.argument_candidates(Fibre)[0]
    assert isinstance(candidate.kwargs["lam_set"], list), candidate
    with pytest.raises(TypeError) as raised:
        Fibre(**candidate.kwargs)
    assert "unsupported operand type(s) for /: 'int' and 'list'" in str(raised.value)
    repairs = synth.argument_repairs(candidate, raised.value, Fibre)
    assert repairs == [{"array": "lam_set"}], repairs
    again = synth.repaired(candidate, repairs)
    assert isinstance(again.kwargs["lam_set"], torch.Tensor) and "lam_set=tensor([" in again.description, again
    assert Fibre(**again.kwargs).domega.shape == (len(candidate.kwargs["lam_set"]),)


def test_an_attribute_handed_to_a_torch_function_in_the_constructor_is_not_handed_on():
    from torch.utils.data import TensorDataset

    class Transmitter(nn.Module):  # no forward; its wavelengths are read by other modules only
        def __init__(self, n=3):
            super().__init__()
            self.lam_set = torch.tensor([])
            for i in range(n):
                self.lam_set = torch.cat([self.lam_set, torch.tensor([1550.0 + i])])
            self.grid = torch.zeros(4)
            self.data = TensorDataset(self.grid)  # kept by what it is handed to

        def pattern(self):
            return torch.randint(0, 2, (4,))

    assert reads.forward_reads(Transmitter, ["lam_set", "grid"]) == {"lam_set": False, "grid": True}


def test_a_number_named_beside_a_list_of_another_length_is_made_a_list_of_that_length():
    class Audiogram(nn.Module):
        def __init__(self, levels, freqs):
            super().__init__()
            self.bands = len(levels)  # a sequence: made up as a list
            levels = np.append(np.array(levels, dtype=float), levels[-1])
            freqs = np.append(np.array(freqs, dtype=float), 16000.0)
            self.ratio = torch.tensor(levels / freqs)  # one per band

    candidate = synth.argument_candidates(Audiogram)[0]
    assert isinstance(candidate.kwargs["levels"], list) and not isinstance(candidate.kwargs["freqs"], list), candidate
    with pytest.raises(ValueError) as raised:
        Audiogram(**candidate.kwargs)
    assert "could not be broadcast together with shapes" in str(raised.value)
    repairs = synth.argument_repairs(candidate, raised.value, Audiogram)
    size = len(candidate.kwargs["levels"])
    assert repairs == [{"lengths": [["freqs", size]]}], repairs
    again = synth.repaired(candidate, repairs)
    assert again.kwargs["freqs"] == [candidate.kwargs["freqs"]] * size and f"freqs={again.kwargs['freqs']}" in again.description
    assert Audiogram(**again.kwargs).ratio.shape == (size + 1,)


def test_a_build_the_repairs_take_further_says_what_stopped_it_last():
    from codemod.validate import build

    class Filterbank(nn.Module):
        def __init__(self, levels, freqs):
            super().__init__()
            self.bands = len(levels)
            ratio = np.append(np.array(levels, dtype=float), 1.0) / np.append(np.array(freqs, dtype=float), 16000.0)
            with open("../HLMpara/filterbank.mat", "rb") as handle:  # data the repository does not ship
                self.bank = torch.tensor(ratio) * len(handle.read())

    candidate = synth.argument_candidates(Filterbank)[0]
    with pytest.raises(ValueError) as raised:  # the first error, as before
        build._repairs_that_build_at_all(Filterbank, candidate)
    shown, last = raised.value.codemod_last_attempt
    assert isinstance(last, FileNotFoundError) and "freqs=[" in shown, (shown, last)


def test_a_made_up_number_assigned_where_a_tensor_is_registered_is_made_a_tensor_or_a_parameter():
    class Weighted(nn.Module):
        def __init__(self, w):
            super().__init__()
            self.criterion = nn.CrossEntropyLoss(weight=w)  # a buffer of the loss: a tensor or None

    candidate = synth.Candidate((), {"w": 0.5}, "w=0.5")
    with pytest.raises(TypeError) as raised:
        Weighted(**candidate.kwargs)
    assert "cannot assign 'float' object to buffer 'weight'" in str(raised.value)
    repairs = synth.argument_repairs(candidate, raised.value, Weighted)
    assert repairs and all(list(r) == ["tensor"] and r["tensor"][0] == "w" for r in repairs), repairs
    assert isinstance(Weighted(**synth.repaired(candidate, repairs[:1]).kwargs).criterion.weight, torch.Tensor)

    class Solver(nn.Module):
        def __init__(self, theta):
            super().__init__()
            self.register_parameter("theta", None)
            self.theta = theta  # a parameter slot: an nn.Parameter or None

    candidate = synth.Candidate((), {"theta": 8}, "theta=8")
    with pytest.raises(TypeError) as raised:
        Solver(**candidate.kwargs)
    repairs = synth.argument_repairs(candidate, raised.value, Solver)
    assert repairs and all(list(r) == ["parameter"] for r in repairs), repairs
    again = synth.repaired(candidate, repairs[:1])
    assert "theta=nn.Parameter(" in again.description, again
    assert isinstance(Solver(**again.kwargs).theta, nn.Parameter)


def test_a_made_up_number_keyed_again_by_a_string_is_made_a_dict():
    class RangeLoss(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.config = config  # read through self: the constructor's direct reads miss it
            self.lb = torch.tensor([self.config["weighting"]["lower_bound"]])

    config = synth.MadeUpMapping({"weighting": 0.5})
    config.path = ("config",)  # as argument_candidates labels the dicts it makes up
    candidate = synth.Candidate((), {"config": config}, "config=a dict")
    synth.forget_mapping_reads()
    with pytest.raises(TypeError) as raised:
        RangeLoss(**candidate.kwargs)
    assert "'float' object is not subscriptable" in str(raised.value)
    repairs = synth.argument_repairs(candidate, raised.value, RangeLoss)
    assert repairs == [{"mapping": ["config", "weighting"]}], repairs
    again = synth.repaired(candidate, repairs)
    assert again.description == "config=a dict; config.weighting=a dict"
    assert isinstance(RangeLoss(**again.kwargs).lb, torch.Tensor)
    assert candidate.kwargs["config"]["weighting"] == 0.5  # the candidate itself is left alone


def test_constructor_arguments_named_a_dtype_or_a_tensor_are_made_up_as_such():
    class Classifier(nn.Module):
        def __init__(self, weights_tensor, DTYPE, n_classes=3):
            super().__init__()
            self.weights_tensor = weights_tensor
            self.pe = torch.zeros(4, dtype=DTYPE)

    made = {name: synth.parameter_values(Classifier, p, p.annotation)[0][0]
            for name, p in inspect.signature(Classifier).parameters.items() if name != "n_classes"}
    assert made["DTYPE"] is torch.float32, made
    assert isinstance(made["weights_tensor"], torch.Tensor), made
    assert Classifier(**made).pe.dtype == torch.float32


def test_inputs_a_loss_takes_as_probabilities_are_made_again_in_zero_to_one():
    class CountingBCE(nn.Module):
        def __init__(self):
            super().__init__()
            self.seen = torch.zeros(1)

        def forward(self, pred, target):
            return F.binary_cross_entropy(pred, target) + self.seen

    model = CountingBCE()
    first = {"args": [{"op": "randn", "shape": [2, 8]}, {"op": "randn", "shape": [2, 8]}], "kwargs": {}}
    message = _error(model, first)
    assert "should be between 0 and 1" in message, message
    repaired = synth.repaired_candidates(first, message)
    assert repaired[0]["args"] == [{"op": "rand", "shape": [2, 8]}] * 2, repaired
    assert _runs(model, repaired[0])


def test_an_acquisition_object_named_p_is_made_up_with_arrays_and_its_repairs_build_the_beamformer():
    import numpy as np

    class Beamformer(nn.Module):
        def __init__(self, P, grid, F=None):
            super().__init__()
            count = range(P.angles.shape[0])  # an array's shape: P.angles is data
            self.angles = torch.tensor(P.angles, dtype=torch.float32)
            self.fs = torch.tensor(P.fs, dtype=torch.float32)
            self.tx_dir = torch.tensor(P.tx_dir, dtype=torch.float32)  # `_dir`: not a folder here
            self.grid = torch.tensor(grid, dtype=torch.float32).reshape(-1, 3)  # points in space
            self.count = len(count)

    made = synth.parameter_values(Beamformer, inspect.signature(Beamformer).parameters["P"], inspect.Parameter.empty)
    P, shown = made[0]
    assert isinstance(P.angles, np.ndarray) and not isinstance(P, float), shown  # a lone `p` is a probability
    assert "angles=array(" in shown, shown
    candidate = synth.Candidate((), {"P": P, "grid": torch.ones(8, 8)}, f"P={shown}, grid=ones(8x8)")
    for expected in ("invalid data type 'str'", "shape '[-1, 3]' is invalid"):
        with pytest.raises((TypeError, RuntimeError)) as raised:
            Beamformer(**candidate.kwargs)
        assert expected in str(raised.value), raised.value
        repairs = synth.argument_repairs(candidate, raised.value, Beamformer)
        assert len(repairs) == 1, repairs
        candidate = synth.repaired(candidate, repairs)
    assert repairs == [{"width": ["grid", 3]}] and "grid=linspace(8x8x3)" in candidate.description, candidate
    assert "P.tx_dir=" in candidate.description, candidate
    built = Beamformer(**candidate.kwargs)
    assert built.grid.shape == (64, 3) and built.count == len(P.angles)


def test_an_assertion_on_the_rank_of_an_argument_made_a_tensor_makes_it_a_nested_list():
    class Systems(nn.Module):
        def __init__(self, system_sizes, width):
            super().__init__()
            self.system_sizes = torch.tensor(system_sizes, dtype=torch.int64)  # (n_size, n_dim)
            assert len(self.system_sizes.shape) == 2
            self.n = self.system_sizes.prod(dim=1)
            self.width = width

    candidate = synth.Candidate((), {"system_sizes": 8, "width": 8}, "system_sizes=8, width=8")
    with pytest.raises(AssertionError) as raised:
        Systems(**candidate.kwargs)
    repairs = synth.argument_repairs(candidate, raised.value, Systems)
    assert repairs == [{"rank": ["system_sizes", 2]}], repairs  # not width: the line does not name it
    again = synth.repaired(candidate, repairs)
    assert again.description == "system_sizes=[[8, 8], [8, 8]], width=8", again
    assert Systems(**again.kwargs).n.tolist() == [64, 64]


def _raised(model: nn.Module, candidate: dict) -> BaseException:
    args, kwargs = synth.make_inputs(candidate)
    with pytest.raises(Exception) as raised:
        model(*args, **kwargs)
    return raised.value


def test_the_input_the_raising_line_names_is_made_again_not_the_first():
    class RightHandSide(nn.Module):  # an ODE's right-hand side: a time, then a state per sample
        def __init__(self):
            super().__init__()
            self.rate = torch.tensor([0.5])

        def forward(self, t, y):
            storage = y[:, 0]
            return storage * self.rate + t

    model = RightHandSide()
    vectors = {"args": [{"op": "rand", "shape": [2]}, {"op": "randn", "shape": [2]}], "kwargs": {}}
    error = _raised(model, vectors)
    assert "too many indices for tensor of dimension 1" in str(error)
    # the first input, and the second made like it, both made matrices: `storage + t` fails
    plain = synth.repaired_candidates(vectors, str(error))
    assert plain and not _runs(model, plain[0]), plain
    focused = synth.forward_repairs(model, vectors, error)
    assert focused[0]["args"][0] == vectors["args"][0], "the time, which the line does not name, is kept"
    assert len(focused[0]["args"][1]["shape"]) == 2 and _runs(model, focused[0]), focused[0]
    assert all(again in focused for again in plain), "the first input's repairs follow"


def test_an_input_forward_leaves_at_none_is_given_a_tensor_where_the_raising_line_reads_it():
    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = torch.tensor(2.0)

        def forward(self, x, prefix=None, temperature=None):
            prefix_len, _, width = prefix.shape
            return x[:, :prefix_len] * self.scale + width

    model = Decoder()
    first = {"args": [{"op": "randn", "shape": [2, 7, 8]}], "kwargs": {}}
    error = _raised(model, first)
    assert "'NoneType' object" in str(error)
    again = synth.forward_repairs(model, first, error)
    assert again[0] == {"args": first["args"], "kwargs": {"prefix": first["args"][0]}}, again
    assert _runs(model, again[0])
    assert not any("temperature" in c["kwargs"] for c in again), "only the input the line reads"
    # a None read the line makes of no input forward leaves at None: no such input given
    assert synth.forward_repairs(model, first, TypeError("'NoneType' object is not callable")) == \
        synth.repaired_candidates(first, "'NoneType' object is not callable")


def test_an_input_of_a_matrix_product_is_made_again_as_a_matrix():
    class Spread(nn.Module):  # an epidemic on a graph: infections spread along the adjacency
        def __init__(self):
            super().__init__()
            self.A = torch.eye(16)

        def forward(self, infected):
            return torch.mm(self.A, infected.transpose(0, 1)).transpose(0, 1)

    model = Spread()
    sequences = {"args": [{"op": "randn", "shape": [2, 7, 16]}], "kwargs": {}}
    error = _raised(model, sequences)
    assert "must be a matrix" in str(error)
    again = synth.forward_repairs(model, sequences, error)
    assert again and all(len(c["args"][0]["shape"]) == 2 for c in again), again
    assert any(_runs(model, c) for c in again)
    transposed = _raised(Transposed(), sequences)
    assert "t() expects a tensor with <= 2 dimensions" in str(transposed)
    assert any(_runs(Transposed(), c) for c in synth.forward_repairs(Transposed(), sequences, transposed))


class Transposed(nn.Module):
    def __init__(self):
        super().__init__()
        self.A = torch.eye(16)

    def forward(self, x):
        return self.A @ x.t()


def test_a_made_up_argument_a_forward_raises_on_is_made_again_where_a_forward_then_runs():
    class Scaled(nn.Module):  # `self.table[0]` of a made-up number: the build runs, no forward does
        def __init__(self, table, width):
            super().__init__()
            self.table = table
            self.width = width
            self.scale = torch.ones(1)

        def forward(self, x):
            return x * self.table[0] * self.scale

    candidate = synth.argument_candidates(Scaled)[0]
    assert not isinstance(candidate.kwargs["table"], torch.Tensor), candidate
    repairs, ran = build._repairs_forward_asks_for(Scaled, candidate, [], None)
    assert repairs and all("table" in json.dumps(repair) for repair in repairs), repairs
    assert ran is not None, "the inputs the repaired build ran on, for its own probe to try first"
    model = build._synth_build(Scaled, synth.repaired(candidate, repairs))
    assert isinstance(model.table, torch.Tensor) and model.width == candidate.kwargs["width"], "width left alone"

    class Unrelated(nn.Module):  # the forward raises on its inputs only: the arguments stay as made up
        def __init__(self, table):
            super().__init__()
            self.table = torch.ones(1)

        def forward(self, x):
            raise ValueError("no input is right")

    plain = synth.argument_candidates(Unrelated)[0]
    assert build._repairs_forward_asks_for(Unrelated, plain, [], None) == ([], None)


def test_a_probe_tries_first_the_inputs_the_choice_of_the_build_saw_run():
    from codemod.validate import probe

    class Picky(nn.Module):  # runs on a 2 x 5 x 3 input only; the made-up ones come first
        def __init__(self):
            super().__init__()
            self.scale = torch.ones(3)

        def forward(self, x):
            if tuple(x.shape) != (2, 5, 3):
                raise ValueError("wants (2, 5, 3)")
            return x * self.scale

    seen = {"args": [{"op": "randn", "shape": [2, 5, 3]}], "kwargs": {}}
    first = probe.first_inputs(Picky(), [], None, seen)
    assert first.inputs == seen and not first.failures and not first.known, first
    alone = probe.first_inputs(Picky(), [], None)
    assert alone.inputs != seen and alone.failures, "made up without it, other inputs are tried first"


class UnpackingLoss(nn.Module):  # a depth loss handed (prediction, target, mask) as one argument
    def __init__(self):
        super().__init__()
        self.epsilon = torch.tensor(1.0e-8)

    def forward(self, x):
        predicted, goal, mask = x
        ratio = torch.log(mask * predicted + self.epsilon) - torch.log(mask * goal + self.epsilon)
        return torch.mean(torch.sum(ratio * ratio, dim=(1, 2, 3)) / torch.sum(mask, dim=(1, 2, 3)))


def test_an_input_the_forward_unpacks_is_made_again_as_a_tuple_of_that_many_tensors():
    model = UnpackingLoss()
    first = {"args": [{"op": "randn", "shape": [2, 16]}], "kwargs": {}}
    error = _raised(model, first)
    assert "not enough values to unpack (expected 3, got 2)" in str(error)
    again = synth.forward_repairs(model, first, error)
    assert {"args": [{"op": "tuple", "items": [first["args"][0]] * 3}], "kwargs": {}} in again, again
    # `b, c = x.shape` raises the same words, but unpacks no input: its repairs are ranks only
    class Shaped(nn.Module):
        def forward(self, x):
            b, c, h = x.shape
            return x.reshape(b, c * h)

    shaped = _raised(Shaped(), first)
    assert "not enough values to unpack (expected 3, got 2)" in str(shaped)
    assert all(spec.get("op") != "tuple" for c in synth.forward_repairs(Shaped(), first, shaped) for spec in c["args"])


def test_a_tuple_the_forward_unpacks_is_made_again_at_the_rank_and_in_the_range_it_needs():
    # the tuple's tensors are made again at the rank the sums over dims 1-3 ask for, then
    # drawn in [0, 1) where logarithms of normal draws leave nothing but NaN
    from codemod.validate import probe

    found = probe.first_inputs(UnpackingLoss(), [], None)
    assert found.inputs is not None and not found.valueless, found.why_none_ran()
    (unpacked,) = found.inputs["args"]
    assert unpacked["op"] == "tuple" and len(unpacked["items"]) == 3
    assert all(item["op"] == "rand" and len(item["shape"]) == 4 for item in unpacked["items"]), unpacked
