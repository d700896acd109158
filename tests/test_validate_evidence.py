"""What a verdict rests on with no setup: forward inputs made up for the forwards users write,
several builds per class with merged coverage, casts judged with a forward, and one verdict
word for each kind of evidence.

Each end-to-end test hands hand-written rewrites of a small repository (no examples file, no
records) to ``validate_rewrites``; every class is validated in one module-scoped call that
shares the session's warm workers.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemod.ftypes import Action, ClassRewrite, Finding, Validation, Verdict
from codemod.validate import ValidationOptions, validate_rewrites

MODELS = '''
import os

import torch
import torch.nn as nn
import torch.nn.functional as F


class SpectralLoss(nn.Module):
    """An STFT loss: its float window, made a buffer, is cast by model.half(); CPU FFTs have no
    half kernel, so the rewritten loss raises where the original (a float32 window) runs."""

    def __init__(self, n_fft=16):
        super().__init__()
        self.n_fft = n_fft
        self.window = torch.hann_window(n_fft)

    def forward(self, input, target):
        a = torch.stft(input, self.n_fft, window=self.window, return_complex=True).abs()
        b = torch.stft(target, self.n_fft, window=self.window, return_complex=True).abs()
        return F.l1_loss(a, b)


class SpectralDistance(nn.Module):
    """SpectralLoss with no forward of its own: used through `distance(input, target)`, which
    validation runs as its forward (never `save`), so the half cast fails the rewrite here too."""

    def __init__(self, n_fft=16):
        super().__init__()
        self.n_fft = n_fft
        self.window = torch.hann_window(n_fft)

    def distance(self, input, target):
        a = torch.stft(input, self.n_fft, window=self.window, return_complex=True).abs()
        b = torch.stft(target, self.n_fft, window=self.window, return_complex=True).abs()
        return F.l1_loss(a, b)

    def save(self, path):
        torch.save(self.window, path)
        return path


class GANLoss(nn.Module):
    """A GAN loss that overrides __call__ (no forward): its inputs come from __call__'s
    signature, and the fake label, cached only when `target_is_real` is False, is read only by
    a second forward with the other value of the flag."""

    def __init__(self, real_label=1.0, fake_label=0.0):
        super().__init__()
        self.real_label, self.fake_label = real_label, fake_label
        self.real_label_var = None
        self.fake_label_var = None
        self.loss = nn.MSELoss()

    def get_target_tensor(self, input, target_is_real):
        if target_is_real:
            if self.real_label_var is None or self.real_label_var.numel() != input.numel():
                self.real_label_var = torch.full_like(input, self.real_label)
            return self.real_label_var
        if self.fake_label_var is None or self.fake_label_var.numel() != input.numel():
            self.fake_label_var = torch.full_like(input, self.fake_label)
        return self.fake_label_var

    def __call__(self, input, target_is_real):
        return self.loss(input, self.get_target_tensor(input, target_is_real))


class HingeOnFake(nn.Module):
    """__call__ again; its margin and scale are read only for fakes, and the hand-written
    rewrite also flips the scale: only the forward with `target_is_real=False` can fail it."""

    def __init__(self):
        super().__init__()
        self.scale = 1.0
        self.margin = torch.tensor(0.5)

    def __call__(self, input, target_is_real):
        if target_is_real:
            return (1 - input).clamp(min=0).mean()
        return (input + self.margin).clamp(min=0).mean() * self.scale


class CapsulePool(nn.Module):
    """Its first layer sizes a matrix (2 x 8), and its forward unpacks four sizes: only inputs
    made again at the rank the first failure names (2 x 16 x 16 x 8) run it."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, 4)
        self.ln_2pi = torch.log(torch.tensor(2 * 3.141592653589793))

    def forward(self, poses):
        b, h, w, c = poses.shape  # channels last: the linear layer reads the last size
        return self.proj(poses.reshape(b, h * w, c)).var(1) + self.ln_2pi


class UniversalEncoder(nn.Module):
    """The signal is read only when the kept option (`self.transformer_type`) is "universal",
    which the default build does not take: a build with the other string it is compared with
    runs a forward that reads it."""

    def __init__(self, dim=4, transformer_type="standard"):
        super().__init__()
        self.transformer_type = transformer_type
        self.proj = nn.Linear(dim, dim)
        self.layer_signal = torch.linspace(0, 1, dim)

    def forward(self, x):
        if self.transformer_type == "universal":
            x = x + self.layer_signal
        return self.proj(x)


class FilterBank(nn.Module):
    """The window exists only with use_window=True, which the first build (the defaults) does
    not take: a second build, the boolean flipped, runs that arm."""

    def __init__(self, dim=16, use_window=False):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        if use_window:
            self.window = torch.hann_window(dim)
        else:
            self.window = None

    def forward(self, x):
        x = self.proj(x)
        if self.window is not None:
            x = torch.fft.rfft(x * self.window).abs()
        return x


class WeightedMSE(nn.Module):
    """forward(input, target): the rewritten weights hold other values, which only a forward
    shows (uninitialised memory is compared by shape and dtype, not by value)."""

    def __init__(self, size=16):
        super().__init__()
        self.weights = torch.empty(size).fill_(2.0)

    def forward(self, input, target):
        return ((input - target) ** 2 * self.weights).mean()


class Tokens(nn.Module):
    def __init__(self, vocab=11, dim=6):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.scale = torch.linspace(0.5, 1.5, dim)

    def forward(self, ids):
        return self.emb(ids) * self.scale


class Scratch(nn.Module):
    """A table of uninitialised memory as big as its made-up size: every output is NaN."""

    def __init__(self, size):
        super().__init__()
        self.table = torch.empty(size)
        self.proj = nn.Linear(size, 4)

    def forward(self, x):
        return self.proj(x + self.table)


class ErrorWeighted(nn.Module):
    """Weights each value by the root of its inverse: normal draws give NaN everywhere (the
    root of a negative spreads through the layer), draws in [0, 1) give values."""

    def __init__(self):
        super().__init__()
        self.scale = torch.linspace(0.5, 1.0, 8)
        self.proj = nn.Linear(8, 2)

    def forward(self, x):
        return self.proj(torch.sqrt(1 / (x + 1e-8)) * self.scale)


class Normalised(nn.Module):
    """Bounds handed in as data (`torch.Tensor(lb)`): a made-up number there is a size, whose
    uninitialised memory would make every output NaN; made vectors of their own instead."""

    def __init__(self, width, lb, ub):
        super().__init__()
        self.lb = torch.Tensor(lb).float()
        self.ub = torch.Tensor(ub).float()
        self.proj = nn.Linear(width, 2)

    def forward(self, x):
        return self.proj(2.0 * (x - self.lb) / (self.ub - self.lb) - 1.0)


class Unrunnable(nn.Module):
    """No made-up input runs its forward: a shape it checks itself."""

    def __init__(self):
        super().__init__()
        self.offset = torch.arange(5.0)

    def forward(self, x):
        if x.dim() != 5 or x.shape[-1] != 3:
            raise ValueError("expects (N, C, D, H, 3) inputs")
        return x + self.offset[0]


class SpectralFeatures(nn.Module):
    """A forward that reads only its scale, and spectrogram(signal), which a training loop calls
    and no forward does, reading the STFT window: a further build runs spectrogram() in place of
    forward on both sides, so the half cast fails the window's rewrite there."""

    def __init__(self, n_fft=16):
        super().__init__()
        self.n_fft = n_fft
        self.proj = nn.Linear(4, 4)
        self.scale = torch.linspace(0.5, 1.5, 4)
        self.window = torch.hann_window(n_fft)

    def forward(self, x):
        return self.proj(x) * self.scale

    def spectrogram(self, signal):
        return torch.stft(signal, self.n_fft, window=self.window, return_complex=True).abs()


class NoiseSchedule(nn.Module):
    """A diffusion schedule whose forward is the training loss, and whose q_sample(x0, t)
    reads the noise scale that no forward reads: proven by running q_sample() in place of
    forward."""

    def __init__(self, steps=8):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.alphas_bar = torch.cumprod(1 - torch.linspace(0.01, 0.2, steps), 0)
        self.noise_scale = torch.sqrt(1 - self.alphas_bar)

    def forward(self, x0):
        return (self.net(x0) * self.alphas_bar[-1]).mean()

    def q_sample(self, x0, t):
        return x0 * self.alphas_bar[t].sqrt()[:, None] + self.noise_scale[t][:, None]


class PosteriorSchedule(nn.Module):
    """A sampler whose public step needs conditioning nothing makes up (`kwargs["cond"]`), and
    whose coefficient only a private helper reads: proven by running _predict_mean(x_t, t,
    eps) in place of forward."""

    def __init__(self, steps=8):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.coef = torch.sqrt(1 - torch.linspace(0.01, 0.2, steps))

    def forward(self, x0):
        return self.net(x0).mean()

    def p_sample(self, x_t, t, **kwargs):
        return self._predict_mean(x_t, t, self.net(x_t) * kwargs["cond"])

    def _predict_mean(self, x_t, t, eps):
        return self.coef[t][:, None] * x_t - eps


class PrivateSpectrum(nn.Module):
    """The float window only a private helper reads: run in place of forward, the helper fails
    the rewrite under a half cast (CPU FFTs have no half kernel), where a forward that never
    reads the window would leave it unproven."""

    def __init__(self, n_fft=16):
        super().__init__()
        self.n_fft = n_fft
        self.proj = nn.Linear(4, 4)
        self.window = torch.hann_window(n_fft)

    def forward(self, x):
        return self.proj(x)

    def _spectrum(self, signal):
        return torch.stft(signal, self.n_fft, window=self.window, return_complex=True).abs()


class Mixture(nn.Module):
    """No forward: log_prob(x) stands in first, but wants events of 13 values, which no
    made-up input has; sample(n), the next method that reads the weights, runs instead."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(11, 4)
        self.weights = torch.linspace(0.1, 1.0, 11)

    def log_prob(self, x):
        assert x.shape[-1] == 13, "events have 13 values"
        return x.sum(-1) + self.weights.sum()

    def sample(self, n: int):
        return self.lin(self.weights.repeat(n, 1))


class TrainedWeight(nn.Module):
    """A weight trained by an optimizer it is handed to (`Adam(model.params)`), wrongly made a
    buffer: training still updates it on the CPU, but a cast or a move replaces the buffer
    with a copy that optimizer never sees."""

    def __init__(self):
        super().__init__()
        self.w = torch.ones(4).requires_grad_()
        self.params = [self.w]

    def forward(self, x):
        return x * self.w


class FocalLoss(nn.Module):
    """A focal loss with class weights: with a target drawn from randn (negative soft labels)
    its cross-entropy is negative and `exp(-ce)` overflows under a half cast, which no real
    target does; a target in [0, 1) keeps it finite, so the rewrite is compared, and passes."""

    def __init__(self, weight, gamma=2):
        super().__init__()
        self.weight = weight
        self.gamma = gamma

    def forward(self, x, y):
        ce = F.cross_entropy(x, y, weight=self.weight, reduction="none")
        pt = torch.exp(-ce)
        return ((1 - pt) ** self.gamma * ce).mean()


class DecayCell(nn.Module):
    """The empirical mean, kept only when given (`x_mean=None` by default): the build that gives
    it a value makes one up (a number, 8), which the rewritten buffer refuses; that proves
    nothing about a tensor, so the rewrite is not validated, never failed."""

    def __init__(self, hidden, x_mean=None):
        super().__init__()
        self.lin = nn.Linear(hidden, hidden)
        if x_mean is not None:
            self.x_mean = x_mean

    def forward(self, x):
        return self.lin(x)


class Sampler(nn.Module):
    """No forward at all: only sample() reads the table."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.table = torch.linspace(0, 1, 4)

    def sample(self):
        return self.lin(self.table)


class Bounds(nn.Module):
    """Only the constructor reads its bounds: nothing that runs later can see a cast of them."""

    def __init__(self):
        super().__init__()
        self.low = torch.tensor([2.0, 85.0])
        self.span = (self.low[1] - self.low[0]).item()

    def forward(self, x):
        return x * self.span


class NewKey(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.scale = torch.ones(4, requires_grad=True)

    def forward(self, x):
        return self.lin(x) * self.scale


class TrainOnly(nn.Module):
    """eval() forwards never read the noise: the forward of the training check does."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.noise = torch.linspace(0, 1, 4)

    def forward(self, x):
        return self.lin(x) + self.noise if self.training else self.lin(x)


class OffsetOnRequest(nn.Module):
    """Its forward reads the offset only when asked to by a mode string, which the made-up
    inputs never pass (a flag with a bool default they would flip: synth.flag_variants)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.offset = torch.linspace(0, 1, 4)

    def forward(self, x, mode: str = "plain"):
        y = self.lin(x)
        return y + self.offset if mode == "offset" else y


class MaskedConv(nn.Conv2d):
    """A partial convolution: its flag comes from **kwargs, never from a parameter the first
    build could flip; a second build passes multi_channel=True and runs the other arm."""

    def __init__(self, *args, **kwargs):
        if "multi_channel" in kwargs:
            self.multi_channel = kwargs.pop("multi_channel")
        else:
            self.multi_channel = False
        super().__init__(*args, **kwargs)
        if self.multi_channel:
            self.updater = torch.ones(self.out_channels, self.in_channels, *self.kernel_size)

    def forward(self, x):
        y = super().forward(x)
        return y * self.updater.sum() if self.multi_channel else y


class PretrainedTable(nn.Module):
    """A position table only the constructor reads: it hands it to nn.Embedding.from_pretrained,
    and the forward reads the embedding, which holds the same tensor on both sides."""

    def __init__(self, n=8, dim=4):
        super().__init__()
        self.table = torch.linspace(0, 1, n * dim).reshape(n, dim)
        self.pos = nn.Embedding.from_pretrained(self.table, freeze=True)

    def forward(self, ids):
        return self.pos(ids) * 2


class Offset(nn.Module):
    def __init__(self, get):
        super().__init__()
        self.get = get

    def forward(self, x):
        return x + self.get()


class ClosureTable(nn.Module):
    """Hands on a closure that reads the parent's slot again at each call, which the made-up
    forward never makes: not a tensor handed on as it is."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.table = torch.linspace(0, 1, 4)
        self.offset = Offset(lambda: self.table)

    def forward(self, x, mode: str = "plain"):
        y = self.lin(x)
        return self.offset(y) if mode == "offset" else y


class HashLoss(nn.Module):
    """A loss configured by a dict (`config["num_train"]`), as many research repositories
    are, whose forward reads the dict too: made-up dicts with those keys build and run it."""

    def __init__(self, config, bit):
        super().__init__()
        self.centers = torch.linspace(-1, 1, config["n_class"] * bit).reshape(config["n_class"], bit).to(config["device"])

    def forward(self, batch, config):
        return config["alpha"] * (batch["codes"] @ self.centers.t()).mean()


class RangeNoise(nn.Module):
    """A noise layer configured by a dict whose ranges it reads by index
    (`params["std_range"][0]`): a made-up dict holds lists there, not numbers."""

    def __init__(self, params):
        super().__init__()
        self.size = params["size"]
        self.std_min = torch.tensor([params["std_range"][0]])
        self.std_max = torch.tensor([params["std_range"][1]])

    def forward(self, x):
        return x + (self.std_min + self.std_max) * 0.5 * torch.ones_like(x)


class GramStyleLoss(nn.Module):
    """A style loss whose target only a helper treats as a tensor (`input.size()` in
    gram_matrix): the number first made up for it raises, and a feature map builds it."""

    def __init__(self, target_feature):
        super().__init__()
        self.target = self.gram_matrix(target_feature).detach()

    def forward(self, input):
        return F.mse_loss(self.gram_matrix(input), self.target)

    def gram_matrix(self, input):
        a, b, c, d = input.size()
        features = input.view(a * b, c * d)
        return torch.mm(features, features.t()).div(a * b * c * d)


class OffsetNoise(nn.Module):
    def __init__(self, setup):
        super().__init__()
        self.low = setup["offset_range"][0]
        self.high = setup["offset_range"][1]

    def forward(self, x):
        return x + (self.low + self.high) * 0.5


class Simulator(nn.Module):
    """A simulator configured by a dict it hands to a child that reads an entry by index,
    which the made-up dict first holds as a number; it draws one row per sample of the batch
    it was built for (`batch_size_gen`), and inputs of that batch run it."""

    def __init__(self, setup):
        super().__init__()
        self.batch_size_gen = setup["batch_size_gen"]
        self.level = torch.full((1,), 0.5)
        self.noise = OffsetNoise(setup)

    def forward(self, x):
        rows = torch.zeros(x.size(0), 1)
        for i in range(self.batch_size_gen):
            rows[i] = self.level
        return self.noise(x) * rows


class MomentLoss(nn.Module):
    """Overrides __call__, which reads only what the constructor derived from the target: the
    checks' own reads of the target around the call are no forward reading it."""

    def __init__(self):
        super().__init__()
        self.target = torch.linspace(0.0, 1.0, 12).reshape(1, 3, 2, 2)
        self.moments = [self.target.mean(dim=(0, 2, 3))]

    def __call__(self, x):
        return ((x.mean(dim=(0, 2, 3)) - self.moments[0]) ** 2).sum()


class GatedLayer(nn.Module):
    """The gate mask exists only with gate_size > 0, a size that is also a switch, which the
    first build (the default 0) does not take: a build with a positive size runs that arm."""

    def __init__(self, in_size=4, out_size=4, gate_size=0):
        super().__init__()
        self.linear = nn.Linear(in_size, out_size)
        if gate_size > 0:
            self.gate_mask = torch.ones(gate_size, out_size)

    def forward(self, x):
        y = self.linear(x)
        return y * self.gate_mask.sum(0) if hasattr(self, "gate_mask") else y


class OnClusterOnly(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        if os.environ.get("ON_THE_TRAINING_CLUSTER"):
            self.boost = torch.ones(4)

    def forward(self, x):
        return self.lin(x)
'''

# (class, attribute, old statement, new statement, action, persistent, reason)
EDITS = [
    ("ErrorWeighted", "scale", "self.scale = torch.linspace(0.5, 1.0, 8)",
     'self.register_buffer("scale", torch.linspace(0.5, 1.0, 8), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
    ("Scratch", "table", "self.table = torch.empty(size)",
     'self.register_buffer("table", torch.empty(size), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("Normalised", "lb", "self.lb = torch.Tensor(lb).float()",
     'self.register_buffer("lb", torch.Tensor(lb).float(), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("Normalised", "ub", "self.ub = torch.Tensor(ub).float()",
     'self.register_buffer("ub", torch.Tensor(ub).float(), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("GANLoss", "real_label_var", "self.real_label_var = None",
     'self.register_buffer("real_label_var", None, persistent=False)', "buffer", False,
     "persistent=False: set to None here and to a tensor in GANLoss.get_target_tensor"),
    ("GANLoss", "fake_label_var", "self.fake_label_var = None",
     'self.register_buffer("fake_label_var", None, persistent=False)', "buffer", False,
     "persistent=False: set to None here and to a tensor in GANLoss.get_target_tensor"),
    ("HingeOnFake", "margin", "self.margin = torch.tensor(0.5)",
     'self.register_buffer("margin", torch.tensor(0.5), persistent=False); self.scale = -1.0', "buffer", False,
     "persistent=False: deterministic constant"),
    ("SpectralLoss", "window", "self.window = torch.hann_window(n_fft)",
     'self.register_buffer("window", torch.hann_window(n_fft), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("SpectralDistance", "window", "self.window = torch.hann_window(n_fft)",
     'self.register_buffer("window", torch.hann_window(n_fft), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("SpectralFeatures", "scale", "self.scale = torch.linspace(0.5, 1.5, 4)",
     'self.register_buffer("scale", torch.linspace(0.5, 1.5, 4), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
    ("SpectralFeatures", "window", "self.window = torch.hann_window(n_fft)",
     'self.register_buffer("window", torch.hann_window(n_fft), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("NoiseSchedule", "alphas_bar", "self.alphas_bar = torch.cumprod(1 - torch.linspace(0.01, 0.2, steps), 0)",
     'self.register_buffer("alphas_bar", torch.cumprod(1 - torch.linspace(0.01, 0.2, steps), 0), persistent=False)',
     "buffer", False, "persistent=False: derived from constructor arguments"),
    ("NoiseSchedule", "noise_scale", "self.noise_scale = torch.sqrt(1 - self.alphas_bar)",
     'self.register_buffer("noise_scale", torch.sqrt(1 - self.alphas_bar), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("PosteriorSchedule", "coef", "self.coef = torch.sqrt(1 - torch.linspace(0.01, 0.2, steps))",
     'self.register_buffer("coef", torch.sqrt(1 - torch.linspace(0.01, 0.2, steps)), persistent=False)', "buffer",
     False, "persistent=False: derived from constructor arguments"),
    ("PrivateSpectrum", "window", "self.window = torch.hann_window(n_fft)",
     'self.register_buffer("window", torch.hann_window(n_fft), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("Mixture", "weights", "self.weights = torch.linspace(0.1, 1.0, 11)",
     'self.register_buffer("weights", torch.linspace(0.1, 1.0, 11), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
    ("TrainedWeight", "w", "self.w = torch.ones(4).requires_grad_()",
     'self.register_buffer("w", torch.ones(4).requires_grad_(), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
    ("FocalLoss", "weight", "self.weight = weight",
     'self.register_buffer("weight", weight, persistent=False)', "buffer", False,
     "persistent=False: a tensor handed to the constructor"),
    ("DecayCell", "x_mean", "self.x_mean = x_mean",
     'self.register_buffer("x_mean", x_mean, persistent=False)', "buffer", False,
     "persistent=False: a tensor handed to the constructor"),
    ("FilterBank", "window", "self.window = torch.hann_window(dim)",
     'self.register_buffer("window", torch.hann_window(dim), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("GatedLayer", "gate_mask", "self.gate_mask = torch.ones(gate_size, out_size)",
     'self.register_buffer("gate_mask", torch.ones(gate_size, out_size), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    # a wrong rewrite: other values in memory whose values are not compared
    ("WeightedMSE", "weights", "self.weights = torch.empty(size).fill_(2.0)",
     'self.register_buffer("weights", torch.empty(size).fill_(3.0), persistent=False)', "buffer", False,
     "persistent=False: uninitialised memory (torch.empty)"),
    ("Tokens", "scale", "self.scale = torch.linspace(0.5, 1.5, dim)",
     'self.register_buffer("scale", torch.linspace(0.5, 1.5, dim), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("Unrunnable", "offset", "self.offset = torch.arange(5.0)",
     'self.register_buffer("offset", torch.arange(5.0), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
    ("Sampler", "table", "self.table = torch.linspace(0, 1, 4)",
     'self.register_buffer("table", torch.linspace(0, 1, 4), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
    ("Bounds", "low", "self.low = torch.tensor([2.0, 85.0])",
     'self.register_buffer("low", torch.tensor([2.0, 85.0]), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
    ("CapsulePool", "ln_2pi", "self.ln_2pi = torch.log(torch.tensor(2 * 3.141592653589793))",
     'self.register_buffer("ln_2pi", torch.log(torch.tensor(2 * 3.141592653589793)), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
    ("UniversalEncoder", "layer_signal", "self.layer_signal = torch.linspace(0, 1, dim)",
     'self.register_buffer("layer_signal", torch.linspace(0, 1, dim), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("NewKey", "scale", "self.scale = torch.ones(4, requires_grad=True)",
     "self.scale = nn.Parameter(torch.ones(4))", "parameter", None, "torch.ones(..., requires_grad=True)"),
    ("TrainOnly", "noise", "self.noise = torch.linspace(0, 1, 4)",
     'self.register_buffer("noise", torch.linspace(0, 1, 4), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
    ("OffsetOnRequest", "offset", "self.offset = torch.linspace(0, 1, 4)",
     'self.register_buffer("offset", torch.linspace(0, 1, 4), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
    ("MaskedConv", "updater", "self.updater = torch.ones(self.out_channels, self.in_channels, *self.kernel_size)",
     'self.register_buffer("updater", torch.ones(self.out_channels, self.in_channels, *self.kernel_size), persistent=False)',
     "buffer", False, "persistent=False: derived from constructor arguments"),
    ("PretrainedTable", "table", "self.table = torch.linspace(0, 1, n * dim).reshape(n, dim)",
     'self.register_buffer("table", torch.linspace(0, 1, n * dim).reshape(n, dim), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("ClosureTable", "table", "self.table = torch.linspace(0, 1, 4)",
     'self.register_buffer("table", torch.linspace(0, 1, 4), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
    ("HashLoss", "centers",
     'self.centers = torch.linspace(-1, 1, config["n_class"] * bit).reshape(config["n_class"], bit).to(config["device"])',
     'self.register_buffer("centers", torch.linspace(-1, 1, config["n_class"] * bit).reshape(config["n_class"], bit)'
     '.to(config["device"]), persistent=False)', "buffer", False, "persistent=False: derived from constructor arguments"),
    ("RangeNoise", "std_min", 'self.std_min = torch.tensor([params["std_range"][0]])',
     'self.register_buffer("std_min", torch.tensor([params["std_range"][0]]), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("GramStyleLoss", "target", "self.target = self.gram_matrix(target_feature).detach()",
     'self.register_buffer("target", self.gram_matrix(target_feature).detach(), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
    ("Simulator", "level", "self.level = torch.full((1,), 0.5)",
     'self.register_buffer("level", torch.full((1,), 0.5), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
    ("MomentLoss", "target", "self.target = torch.linspace(0.0, 1.0, 12).reshape(1, 3, 2, 2)",
     'self.register_buffer("target", torch.linspace(0.0, 1.0, 12).reshape(1, 3, 2, 2), persistent=False)', "buffer",
     False, "persistent=False: deterministic constant"),
    ("OnClusterOnly", "boost", "self.boost = torch.ones(4)",
     'self.register_buffer("boost", torch.ones(4), persistent=False)', "buffer", False,
     "persistent=False: deterministic constant"),
]


# A class whose constructor needs arguments nothing makes up well, and whose forward takes
# images it cuts into patches: its __main__ block shows both, and is read, never run.
PATCHES = '''
import torch
import torch.nn as nn


class Patches(nn.Module):
    def __init__(self, patch, dim):
        super().__init__()
        self.patch = patch
        self.proj = nn.Linear(patch * patch * 3, dim)
        self.pos = torch.linspace(0, 1, dim)

    def forward(self, images):
        b, c, h, w = images.shape
        p = self.patch
        x = images.unfold(2, p, p).unfold(3, p, p).reshape(b, -1, c * p * p)
        return self.proj(x) + self.pos


if __name__ == "__main__":
    raise SystemExit("a __main__ block is read, never run")
    size = 4
    model = Patches(patch=size, dim=2 * size)
    print(model(torch.randn(2, 3, 12, 12)).shape)
'''

PATCH_EDITS = [
    ("Patches", "pos", "self.pos = torch.linspace(0, 1, dim)",
     'self.register_buffer("pos", torch.linspace(0, 1, dim), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
]


# A training script that loads its data before it defines its loss, and defines the loss only
# under a flag: importing it raises before the class exists, so the module is built from its
# definitions (definitions.py), skipping the load that raises and the script's work.
SCRIPT = '''
import sys

import torch
import torch.nn as nn

USE_WEIGHTED = "--weighted" in sys.argv
recordings = torch.load("recordings_that_are_not_here.pt")

if USE_WEIGHTED:
    class WeightedError(nn.Module):
        def __init__(self, weight):
            super().__init__()
            self.weight = weight

        def forward(self, input, target):
            return (self.weight * (input - target) ** 2).mean()

    criterion = WeightedError(torch.ones(8))

for epoch in range(3):
    print(criterion(recordings, recordings))
'''

SCRIPT_EDITS = [
    ("WeightedError", "weight", "self.weight = weight",
     'self.register_buffer("weight", weight, persistent=False)', "buffer", False,
     "persistent=False: a tensor handed to the constructor"),
]


# A network whose constructor reads its layout from a file beside its module, named relative to
# that folder (YOLOv5's `Model(cfg="yolov5s.yaml")`): from the root the file is not found.
CONFIGURED = '''
import json

import torch
import torch.nn as nn


class ConfiguredNet(nn.Module):
    def __init__(self, cfg="layout.json"):
        super().__init__()
        with open(cfg) as handle:
            width = json.load(handle)["width"]
        self.proj = nn.Linear(width, width)
        self.scale = torch.linspace(0.5, 1.5, width)

    def forward(self, x):
        return self.proj(x) * self.scale
'''

CONFIGURED_EDITS = [
    ("ConfiguredNet", "scale", "self.scale = torch.linspace(0.5, 1.5, width)",
     'self.register_buffer("scale", torch.linspace(0.5, 1.5, width), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
]


# Empty slots a setter fills before forward reads them, as the repository's own code calls it
# (an ODE function conditioned before integration): None after construction, so only a build
# that calls the setter first proves the rewrite, and a half cast after it fails the window.
SLOTS = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConditionedField(nn.Module):
    def __init__(self, dim=4, groups=3):
        super().__init__()
        self.embed = nn.Embedding(groups, dim)
        self.net = nn.Linear(dim, dim)
        self.code = None

    def set_condition(self, group):
        self.code = self.embed(group).mean(0)

    def forward(self, x):
        return self.net(x) * self.code


class GroupConditioned(nn.Module):
    def __init__(self, dim=4, groups=3):
        super().__init__()
        self.embed = nn.Embedding(groups, dim)
        self.net = nn.Linear(dim, dim)
        self.code = None

    def set_condition(self, group_idx: torch.Tensor):
        self.code = self.embed(group_idx)

    def forward(self, x):
        return torch.einsum("bd,bd->b", self.net(x), self.code)


class ConfiguredSpectrum(nn.Module):
    def __init__(self):
        super().__init__()
        self.window = None

    def configure(self, n_fft: int):
        self.window = torch.hann_window(n_fft + 14)

    def forward(self, input, target):
        n_fft = self.window.numel()
        a = torch.stft(input, n_fft, window=self.window, return_complex=True).abs()
        b = torch.stft(target, n_fft, window=self.window, return_complex=True).abs()
        return F.l1_loss(a, b)
'''

SLOT_EDITS = [
    ("ConditionedField", "code", "self.code = None", 'self.register_buffer("code", None, persistent=False)', "buffer",
     False, "persistent=False: set to None here and to a tensor in ConditionedField.set_condition"),
    ("GroupConditioned", "code", "self.code = None", 'self.register_buffer("code", None, persistent=False)', "buffer",
     False, "persistent=False: set to None here and to a tensor in GroupConditioned.set_condition"),
    ("ConfiguredSpectrum", "window", "self.window = None", 'self.register_buffer("window", None, persistent=False)',
     "buffer", False, "persistent=False: set to None here and to a tensor in ConfiguredSpectrum.configure"),
]


# Reads in a branch of forward: a pass needs every read of the rewritten tensor to have run in
# a compared forward, not only the first (a detection head's anchors meet CPU targets only in
# the training branch, which made-up inputs do not take).
BRANCHES = '''
import torch
import torch.nn as nn


def match(targets, anchors):
    return (targets[:, :2] * anchors[0]).sum()


class DetectionHead(nn.Module):
    def __init__(self, width=4):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.anchors = torch.tensor([[1.0, 2.0], [3.0, 4.0]])

    def forward(self, x, targets=None):
        y = self.proj(x) * self.anchors.sum()
        if targets is not None:
            return y, match(targets, self.anchors)
        return y


class ResidualScale(nn.Module):
    def __init__(self, width=4, residual=False):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.residual = residual
        self.scale = torch.full((width,), 0.5)

    def forward(self, x):
        y = self.proj(x) * self.scale
        if self.residual:
            y = y + x * self.scale
        return y
'''

BRANCH_EDITS = [
    ("DetectionHead", "anchors", "self.anchors = torch.tensor([[1.0, 2.0], [3.0, 4.0]])",
     'self.register_buffer("anchors", torch.tensor([[1.0, 2.0], [3.0, 4.0]]), persistent=False)', "buffer", False,
     "persistent=False: a constant"),
    ("ResidualScale", "scale", "self.scale = torch.full((width,), 0.5)",
     'self.register_buffer("scale", torch.full((width,), 0.5), persistent=False)', "buffer", False,
     "persistent=False: derived from constructor arguments"),
]


def _module(root: Path, name: str, source: str, edits) -> tuple[list[ClassRewrite], dict[Path, str]]:
    text = textwrap.dedent(source).lstrip("\n")
    path = root / "pkg" / f"{name}.py"
    path.write_text(text)
    lines = text.splitlines()
    rewrites = []
    for cls, attr, old, new, action, persistent, reason in edits:
        start = next(i for i, line in enumerate(lines) if line.lstrip().startswith(f"class {cls}("))
        index = next(i for i in range(start, len(lines)) if lines[i].strip() == old)
        lines[index] = lines[index].replace(old, new)
        finding = Finding(f"pkg/{name}.py", index + 1, 9, cls, attr, Action(action), persistent, reason)
        if rewrites and rewrites[-1].class_name == cls:  # one class, several rewrites
            last = rewrites[-1]
            rewrites[-1] = ClassRewrite(path, last.module, cls, [*last.findings, finding],
                                        (*last.statements, (attr, index + 1, index + 1)))
        else:
            rewrites.append(ClassRewrite(path, f"pkg.{name}", cls, [finding], ((attr, index + 1, index + 1),)))
    return rewrites, {path: "\n".join(lines) + "\n"}


def _repository(root: Path) -> tuple[list[ClassRewrite], dict[Path, str]]:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    rewrites, overlay = _module(root, "models", MODELS, EDITS)
    more, other = _module(root, "patches", PATCHES, PATCH_EDITS)
    overlay.update(other)
    script, other = _module(root, "train_script", SCRIPT, SCRIPT_EDITS)
    overlay.update(other)
    configured, other = _module(root, "configured", CONFIGURED, CONFIGURED_EDITS)
    overlay.update(other)
    slots, other = _module(root, "slots", SLOTS, SLOT_EDITS)
    overlay.update(other)
    configured += slots
    branches, other = _module(root, "branches", BRANCHES, BRANCH_EDITS)
    overlay.update(other)
    configured += branches
    (root / "pkg" / "layout.json").write_text('{"width": 6}')
    return rewrites + more + script + configured, overlay


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory) -> dict[str, Validation]:
    root = tmp_path_factory.mktemp("evidence")
    rewrites, overlay = _repository(root)
    results = validate_rewrites(root, rewrites, overlay, ValidationOptions(jobs=2, timeout=120))
    return {cls: v for (_, cls), v in results.items()}


def _describe(v: Validation) -> str:
    return f"{v.verdict.value}: {v.message}\n" + "\n".join(f"  {d}" for d in v.details + v.notes)


# -- the acceptance cases: rewrites only the new evidence fails ---------------------------------


def test_a_float_window_fed_to_an_fft_in_a_loss_fails_under_a_half_cast(verdicts):
    v = verdicts["SpectralLoss"]
    assert v.verdict is Verdict.FAILED, _describe(v)
    casts = [f for f in v.failures if f.startswith("casts: ")]
    assert any("model.half()" in f and "MKL FFT doesn't support tensors of type: Half" in f for f in casts), casts
    assert any("model.to(torch.bfloat16)" in f for f in casts), casts
    # the inputs: a prediction and a target of the same shape, made up with no setup
    assert any("forward inputs made up" in d and "randn(2x16), rand(2x16)" in d for d in v.details), v.details
    assert "forward:cpu" in v.compared  # in float32 both agree


def test_a_method_stands_in_for_a_missing_forward_and_fails_the_half_cast_too(verdicts):
    v = verdicts["SpectralDistance"]
    assert v.verdict is Verdict.FAILED, _describe(v)
    casts = [f for f in v.failures if f.startswith("casts: ")]
    assert any("model.half()" in f and "MKL FFT doesn't support tensors of type: Half" in f for f in casts), casts
    assert any("distance(), which reads the rewritten attributes, stood in for it" in d for d in v.details + v.notes), \
        _describe(v)


def test_a_method_no_forward_calls_runs_in_place_of_forward_and_fails_the_half_cast(verdicts):
    v = verdicts["SpectralFeatures"]
    assert v.verdict is Verdict.FAILED and v.verdict_for("window") is Verdict.FAILED, _describe(v)
    # forward reads the scale and agrees in every cast; the failure names no attribute, so it
    # holds back every rewrite of the class
    assert not any(f.startswith("casts: ") for f in v.failures), v.failures
    casts = [f for f in v.failures if f.startswith("build 2: casts: ")]
    assert any("model.half()" in f and "MKL FFT doesn't support tensors of type: Half" in f for f in casts), v.failures
    assert v.builds[1].endswith("running spectrogram() as its forward"), v.builds


def test_a_method_no_forward_calls_proves_what_it_reads(verdicts):
    v = verdicts["NoiseSchedule"]
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert v.forward_for("noise_scale") == "compared", v.rewrites
    message = v.message_for("noise_scale")
    assert message.startswith("proven by running: q_sample(), which reads it where no forward does, compared in "
                              "float32 and after model.to(torch.bfloat16), model.half(), model.double() (build 2)"), message
    assert v.message_for("alphas_bar").startswith("proven by running: forward compared"), v.message_for("alphas_bar")
    assert any("no forward reads noise_scale: q_sample() does, and ran in place of forward" in n
               for n in v.details + v.notes), \
        _describe(v)


def test_a_private_helper_runs_in_place_of_forward_where_no_public_method_runs(verdicts):
    v = verdicts["PosteriorSchedule"]
    assert v.verdict is Verdict.PASSED and v.forward_for("coef") == "compared", _describe(v)
    assert v.message_for("coef").startswith("proven by running: _predict_mean(), which reads it where no forward "
                                            "does, compared in float32"), v.message_for("coef")


def test_a_private_helper_run_in_place_of_forward_fails_the_half_cast(verdicts):
    v = verdicts["PrivateSpectrum"]
    assert v.verdict is Verdict.FAILED, _describe(v)
    casts = [f for f in v.failures if f.startswith("build 2: casts: ")]
    assert any("model.half()" in f and "MKL FFT doesn't support tensors of type: Half" in f for f in casts), v.failures
    assert v.builds[1].endswith("running _spectrum() as its forward"), v.builds


def test_the_next_method_stands_in_where_the_first_one_s_inputs_do_not_run(verdicts):
    v = verdicts["Mixture"]
    assert v.verdict is Verdict.PASSED and v.forward_for("weights") == "compared", _describe(v)
    said = v.details + v.notes
    assert any(d.startswith("log_prob() did not run with made-up inputs") and "events have 13 values" in d
               for d in said), _describe(v)
    assert any("sample(), which reads the rewritten attributes, stood in for it" in d for d in said), _describe(v)


def test_a_trained_tensor_made_a_buffer_fails_with_what_parts_it_from_its_optimizer(verdicts):
    v = verdicts["TrainedWeight"]
    assert v.verdict is Verdict.FAILED, _describe(v)
    training = [f for f in v.failures if f.startswith("training: ")]
    assert any("w requires grad in the original" in f and "a cast or a move to another device replaces it with a "
               "copy that such an optimizer never updates" in f for f in training), v.failures


def test_a_class_a_script_defines_after_code_that_raises_is_built_from_the_script_s_definitions(verdicts):
    v = verdicts["WeightedError"]
    assert v.verdict is Verdict.PASSED and v.forward_for("weight") == "compared", _describe(v)
    said = v.details + v.notes
    assert any("train_script's top-level code raised FileNotFoundError" in d and "before defining WeightedError" in d
               and "the definitions that raised were skipped (line 7 (FileNotFoundError))" in d for d in said), \
        _describe(v)


def test_a_constructor_that_opens_a_file_beside_its_module_is_built_from_that_folder(verdicts):
    v = verdicts["ConfiguredNet"]
    assert v.verdict is Verdict.PASSED and v.forward_compared, _describe(v)
    assert any("built from pkg/ (which holds layout.json)" in note for note in v.details + v.notes), _describe(v)


def test_an_empty_slot_a_setter_fills_is_proven_by_a_build_that_calls_the_setter_first(verdicts):
    v = verdicts["ConditionedField"]
    assert v.verdict is Verdict.PASSED and v.forward_compared, _describe(v)
    assert any("set_condition(" in build for build in v.builds), _describe(v)
    assert any("set_condition() fills it" in note for note in v.details + v.notes), _describe(v)


def test_a_setter_s_inputs_are_tried_in_turn_until_a_forward_runs_after_them(verdicts):
    # a token batch of group indices fills the slot at a shape forward cannot concatenate; one
    # index per sample fits
    v = verdicts["GroupConditioned"]
    assert v.verdict is Verdict.PASSED and v.forward_compared, _describe(v)
    assert any("set_condition(randint<3(2))" in build for build in v.builds), _describe(v)


def test_an_empty_slot_a_setter_fills_fails_the_half_cast_it_is_then_given(verdicts):
    v = verdicts["ConfiguredSpectrum"]
    assert v.verdict is Verdict.FAILED, _describe(v)
    assert any("half" in f for f in v.failures if f.startswith(("casts: ", "build 2: casts: "))), _describe(v)


def test_a_focal_loss_s_made_up_target_is_never_negative_so_its_half_cast_is_compared(verdicts):
    v = verdicts["FocalLoss"]
    assert v.verdict is Verdict.PASSED and v.forward_for("weight") == "compared", _describe(v)
    assert not any("inf or nan" in d for d in v.details + v.failures), _describe(v)


def test_a_made_up_value_a_variant_gives_that_a_rewritten_buffer_refuses_is_no_failure(verdicts):
    v = verdicts["DecayCell"]
    assert v.verdict is not Verdict.FAILED and v.verdict_for("x_mean") is Verdict.NOT_VALIDATED, _describe(v)
    assert not v.failures, v.failures


def test_a_loss_that_overrides_call_gets_inputs_from_its_signature_and_both_flag_values(verdicts):
    v = verdicts["GANLoss"]
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert v.forward_compared, _describe(v)
    # the second build: the same arguments, the flag's other value, which fills the fake label
    assert len(v.builds) == 2 and "other forward inputs" in v.builds[1] and "False" in v.builds[1], (v.builds, v.rewrites)
    assert v.forward_for("fake_label_var") == "compared" and v.rewrites["fake_label_var"]["builds"] == [2], v.rewrites


def test_a_rewrite_read_only_with_a_flag_s_other_value_fails(verdicts):
    v = verdicts["HingeOnFake"]
    assert v.verdict is Verdict.FAILED, _describe(v)
    assert any("forward" in f for f in v.failures), v.failures
    assert not any(f.startswith("attributes") for f in v.failures), v.failures  # the margin itself agrees


def test_inputs_made_again_at_the_rank_a_failed_forward_names_give_a_forward(verdicts):
    v = verdicts["CapsulePool"]
    assert v.verdict is Verdict.PASSED and "forward:cpu" in v.compared, _describe(v)
    made = [d for d in v.details + v.notes if "forward inputs made up" in d]
    assert made and made[0].endswith("randn(2x16x16x8)"), made  # B x H x W x C, C the width of the linear layer


def test_a_kept_string_option_gets_a_build_with_each_string_it_is_compared_with(verdicts):
    v = verdicts["UniversalEncoder"]
    assert v.verdict is Verdict.PASSED and v.forward_compared, _describe(v)
    assert any(b.endswith("with transformer_type='universal'") for b in v.builds), v.builds


def test_a_rewrite_in_an_arm_only_a_second_build_takes_fails(verdicts):
    v = verdicts["FilterBank"]
    assert v.verdict is Verdict.FAILED, _describe(v)
    assert len(v.builds) == 2 and v.builds[1].endswith("with use_window=True"), v.builds
    assert v.branches == [1, 1]
    message = v.message_for("window")
    assert "build 2" in message and "model.half()" in message, message


def test_a_read_in_a_branch_no_compared_forward_takes_leaves_the_rewrite_not_validated(verdicts):
    # inference reads the anchors, and its forward is compared; the training branch reads them
    # too, with targets, and none of the forwards ran it
    v = verdicts["DetectionHead"]
    assert v.verdict is Verdict.NOT_VALIDATED, _describe(v)
    assert v.forward_for("anchors") == "compared"
    message = v.message_for("anchors")
    assert "the read at line 18 in forward() never ran" in message, message


def test_a_read_in_a_branch_a_second_build_takes_is_proven_by_that_build(verdicts):
    v = verdicts["ResidualScale"]
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert len(v.builds) == 2 and v.builds[1].endswith("with residual=True"), v.builds


def test_a_size_the_constructor_compares_with_zero_gets_a_build_with_a_positive_one(verdicts):
    v = verdicts["GatedLayer"]
    assert v.verdict is Verdict.PASSED and v.forward_for("gate_mask") == "compared", _describe(v)
    assert any(b.endswith("with gate_size=2") for b in v.builds), v.builds


def test_a_flag_read_from_kwargs_gets_a_build_that_sets_it(verdicts):
    v = verdicts["MaskedConv"]
    # the rewritten statement runs only with multi_channel=True, which no parameter names
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert any(b.endswith("with multi_channel=True") for b in v.builds), v.builds
    assert v.forward_for("updater") == "compared"


def test_a_loss_whose_rewrite_changes_its_output_fails(verdicts):
    v = verdicts["WeightedMSE"]
    assert v.verdict is Verdict.FAILED, _describe(v)
    assert any(f.startswith("forward: on cpu") and "differs" in f for f in v.failures), v.failures
    assert any("only its dtype and shape are compared" in d for d in v.details), v.details


# -- one test per verdict word -------------------------------------------------------------------


def test_passed_means_a_forward_was_compared_in_float32_and_after_each_cast(verdicts):
    v = verdicts["Tokens"]
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert v.forward_for("scale") == "compared"
    message = v.message_for("scale")
    assert "forward compared in float32 and after model.to(torch.bfloat16), model.half(), model.double()" in message
    # integer tokens within the embedding's range
    assert any("randint<11(2x7)" in d for d in v.details), v.details
    assert {"forward:cpu", "casts", "coverage"} <= set(v.checks_for("scale"))


def test_passed_without_a_forward_says_no_forward_reads_the_attribute(verdicts):
    v = verdicts["Bounds"]
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert v.forward_for("low") == "not used"
    assert "no forward of the class reads low" in v.message_for("low")
    # its forward ran and was compared (it reads the span): the text never says none was
    assert v.forward_compared and "so the forward compared says nothing about it" in v.message_for("low")


def test_a_rewrite_only_a_method_validation_does_not_run_reads_is_checked_without_forward(verdicts):
    # sample() reads the table: under model.half() it would see a half table where the
    # original keeps float32, and no forward shows what that does
    v = verdicts["Sampler"]
    assert v.verdict is Verdict.CHECKED_WITHOUT_FORWARD, _describe(v)
    assert v.forward_for("table") is None
    assert "sample() reads it, which validation does not run" in v.message_for("table")


def test_checked_without_forward(verdicts):
    v = verdicts["Unrunnable"]
    assert v.verdict is Verdict.CHECKED_WITHOUT_FORWARD, _describe(v)
    assert v.verdict_for("offset") is Verdict.CHECKED_WITHOUT_FORWARD
    assert not v.forward_compared and v.forward_for("offset") is None
    message = v.message_for("offset")
    assert message.startswith("structure, checkpoint and meta checks agree, but forward not compared"), message
    # a cast check without a forward is reported as not run
    assert "casts" not in v.checks_for("offset")
    assert any(d.startswith("casts: not run (no forward)") for d in v.details), v.details


def test_a_forward_counts_for_a_rewrite_only_when_it_reads_the_rewritten_tensor(verdicts):
    v = verdicts["TrainOnly"]  # read by the train() forward of the training check
    assert v.verdict is Verdict.PASSED and v.forward_for("noise") == "compared", _describe(v)
    v = verdicts["OffsetOnRequest"]
    assert v.verdict is Verdict.CHECKED_WITHOUT_FORWARD, _describe(v)
    assert "forward:cpu" in v.compared  # a forward was compared, but it took the other path
    assert "the forward compared never read offset" in v.message_for("offset"), v.message_for("offset")


def test_a_tensor_handed_on_in_init_is_proven_by_a_forward_of_what_received_it(verdicts):
    v = verdicts["PretrainedTable"]
    assert v.verdict is Verdict.PASSED and v.forward_for("table") == "compared", _describe(v)
    message = v.message_for("table")
    assert "forward compared in float32 and after" in message, message
    assert "reaches the forward only through what __init__ handed it to" in message, message


def test_a_closure_handed_on_in_init_is_no_such_evidence(verdicts):
    v = verdicts["ClosureTable"]  # the closure reads self.table at each call; the forward never called it
    assert v.verdict is Verdict.CHECKED_WITHOUT_FORWARD, _describe(v)
    assert "the forward compared never read table" in v.message_for("table"), v.message_for("table")


def test_a_dict_config_is_made_up_from_the_keys_the_constructor_and_forward_read(verdicts):
    v = verdicts["HashLoss"]
    assert v.verdict is Verdict.PASSED and v.forward_for("centers") == "compared", _describe(v)
    assert any("config=a dict ({'device': 'cpu', 'n_class':" in b for b in v.builds), v.builds
    # an option by its name, data as a tensor
    assert any("forward inputs made up" in d and "{'codes': randn(2x" in d and "{'alpha': 0.5}" in d
               for d in v.details), v.details


def test_a_dict_entry_read_by_index_is_made_up_as_a_list(verdicts):
    v = verdicts["RangeNoise"]
    assert v.verdict is Verdict.PASSED and v.forward_for("std_min") == "compared", _describe(v)
    assert any("params=a dict (" in b and "'std_range': [" in b for b in v.builds), v.builds


def test_a_class_overriding_call_that_never_reads_the_rewrite_has_no_forward_for_it(verdicts):
    v = verdicts["MomentLoss"]
    assert v.verdict is Verdict.PASSED and v.forward_for("target") == "not used", _describe(v)


def test_a_number_a_helper_uses_as_a_tensor_is_made_up_again_as_one(verdicts):
    v = verdicts["GramStyleLoss"]
    assert v.verdict is Verdict.PASSED and v.forward_for("target") == "compared", _describe(v)
    assert any("target_feature=linspace(2x3x" in b for b in v.builds), v.builds


def test_a_number_a_child_indexes_is_made_up_again_as_a_pair_and_inputs_take_the_held_batch(verdicts):
    v = verdicts["Simulator"]
    assert v.verdict is Verdict.PASSED and v.forward_for("level") == "compared", _describe(v)
    assert any("setup.offset_range=[" in b for b in v.builds), v.builds


def test_changes_the_checkpoint_format(verdicts):
    v = verdicts["NewKey"]
    assert v.verdict is Verdict.CHANGES_CHECKPOINT, _describe(v)
    assert not v.failures
    message = v.message_for("scale")
    assert "the only difference is new state_dict keys (scale)" in message
    assert "strict=False" in message and "missing_keys=[scale]" in message and "--allow-new-keys" in message


def test_failed(verdicts):
    v = verdicts["WeightedMSE"]
    assert v.verdict is Verdict.FAILED and v.verdict_for("weights") is Verdict.FAILED, _describe(v)


def test_not_validated_when_no_build_runs_the_statement(verdicts):
    # an arm only an environment takes (a GPU arm is built again with a GPU reported, and runs)
    v = verdicts["OnClusterOnly"]
    assert v.verdict is Verdict.NOT_VALIDATED, _describe(v)
    assert "branch not taken" in v.message_for("boost")
    assert v.branches == [0, 1]


# -- the repository's own calls ----------------------------------------------------------------


def test_a_class_is_built_and_called_as_its_main_block_does(verdicts):
    v = verdicts["Patches"]
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert v.builds[0] == "built as pkg/patches.py:22 calls it (patch=4, dim=8)", v.builds
    assert any("forward inputs the repository's own call: randn(2x3x12x12)" in d for d in v.details), v.details
    assert v.forward_for("pos") == "compared"


# -- the same verdicts on every run ------------------------------------------------------------

DETERMINISM = """
import torch
import torch.nn as nn


class Noisy(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.noise = torch.Tensor(n)

    def forward(self, x):
        return self.lin(x) + self.noise


class Switch(nn.Module):
    def __init__(self, dim, gated=False):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.gate = torch.linspace(0, 1, dim) if gated else torch.ones(dim)

    def forward(self, x):
        return self.lin(x) * self.gate


class Loss(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = torch.rand(16)

    def forward(self, input, target):
        return ((input - target) ** 2 * self.weights).sum()
"""


def test_verdicts_are_the_same_on_every_run_without_the_cache(tmp_path):
    from codemod.runner import RunOptions, run

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\nversion = '0'\n")
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m.py").write_text(textwrap.dedent(DETERMINISM).lstrip("\n"))
    runs = []
    for _ in range(2):
        report = run([tmp_path], RunOptions(write=False, jobs=1, timeout=120, use_cache=False, root=tmp_path))
        runs.append([(f.line, f.class_name, f.attribute, f.held_back, f.validation.to_json())
                     for f in report.findings if f.validation is not None])
    assert len(runs[0]) == 3
    assert runs[0] == runs[1]
    verdicts = {cls: json["rewrites"][attr]["verdict"] for _, cls, attr, _, json in runs[0]}
    # torch.Tensor(n) is uninitialised memory: the same (NaN) on both sides and in every run, so
    # its forward agrees, but on NaN only, which compares no value: checked without forward, on
    # every run; the others pass or add a key (as the persistent policy decides)
    proven = {"passed", "changes the checkpoint format"}
    assert verdicts["Noisy"] == "checked without forward", verdicts
    assert verdicts["Loss"] in proven and verdicts["Switch"] == "passed", verdicts
    switch = next(json for _, cls, _, _, json in runs[0] if cls == "Switch")
    assert switch["branches"] == [1, 1] and switch["forward_compared"], switch


# -- who a failed import is blamed on ----------------------------------------------------------

SIDE_EFFECT = """
import os

os.mkdir("made_at_import")  # succeeds once: the second import (the rewritten side's) raises
"""

BLAMED = """
import torch
import torch.nn as nn

import pkg.side_effect  # noqa: F401


class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = torch.zeros(3)

    def forward(self, x):
        return x + self.t
"""

BROKEN = """
import torch
import torch.nn as nn


class Broken(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = torch.zeros(3)

    def forward(self, x):
        return x + self.t
"""


def test_an_import_that_fails_outside_the_rewritten_code_is_an_error_and_one_inside_it_fails(tmp_path):
    root = tmp_path / "blame"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "side_effect.py").write_text(SIDE_EFFECT)
    edit = ("self.t = torch.zeros(3)", 'self.register_buffer("t", torch.zeros(3), persistent=False)')
    rewrites, overlay = _module(root, "blamed", BLAMED, [("Table", "t", *edit, "buffer", False, "constant")])
    broken_edit = ("self.t = torch.zeros(3)", 'self.register_buffer("t", torch.zeros(3), persistent=False')  # no ")"
    more, other = _module(root, "broken", BROKEN, [("Broken", "t", *broken_edit, "buffer", False, "constant")])
    overlay.update(other)
    results = validate_rewrites(root, rewrites + more, overlay, ValidationOptions(jobs=1, timeout=120))
    verdicts = {cls: v for (_, cls), v in results.items()}
    blamed = verdicts["Table"]
    assert (root / "made_at_import").is_dir()  # the original imported, and made it
    assert blamed.verdict is Verdict.ERROR, _describe(blamed)
    assert "FileExistsError" in blamed.message and "in code the rewrite does not change" in blamed.message, blamed.message
    broken = verdicts["Broken"]
    assert broken.verdict is Verdict.FAILED and "fails to import" in broken.message, _describe(broken)


def test_a_pass_says_when_the_rewrite_changes_the_dtype_a_cast_model_returns(verdicts):
    """Under model.half() the original's float32 scale promotes its output to float32, while
    the rewritten buffer follows the cast: the values agree within half rounding and the
    rewrite passes, and the details say what the output's dtype becomes."""
    v = verdicts["Tokens"]
    assert v.verdict is Verdict.PASSED, _describe(v)
    assert any(d.startswith("casts: after model.half() the rewritten forward returns output float16 where the "
                            "original's is float32") for d in v.details), v.details
    assert not any("model.double() the rewritten forward returns" in d for d in v.details), v.details


def test_a_forward_whose_every_output_is_nan_is_no_forward_compared(verdicts):
    v = verdicts["Scratch"]
    assert v.verdict is Verdict.CHECKED_WITHOUT_FORWARD, _describe(v)
    assert not v.forward_compared and "every output of the original is NaN or infinite" in v.message_for("table")


def test_numbers_made_up_as_sizes_of_data_are_made_vectors_of_values_where_outputs_were_nan(verdicts):
    v = verdicts["Normalised"]
    assert v.verdict is Verdict.PASSED and v.forward_for("lb") == v.forward_for("ub") == "compared", _describe(v)
    built = next(d for d in v.details if d.startswith("built with made-up arguments"))
    assert "lb=linspace(" in built and "ub=linspace(" in built, built


def test_inputs_that_give_only_nan_are_drawn_again_in_the_unit_interval(verdicts):
    v = verdicts["ErrorWeighted"]
    assert v.verdict is Verdict.PASSED and v.forward_for("scale") == "compared", _describe(v)
    made = next(d for d in v.details if d.startswith("forward inputs made up"))
    assert ": rand(" in made and "randn(" not in made, made
