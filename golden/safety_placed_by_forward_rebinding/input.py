import torch
import torch.nn as nn


class STFTLoss(nn.Module):
    """forward first moves the window to the input's device itself, and every other read
    (the stft helper's) comes after: the window stays float32 today whatever the model's
    dtype, while as a buffer model.half() would cast it, and CPU FFTs take no float16."""

    def __init__(self, fft_size=64, hop_size=16):
        super().__init__()
        self.fft_size = fft_size
        self.hop_size = hop_size
        self.window = torch.hann_window(fft_size)

    def stft(self, x):
        spec = torch.stft(x, self.fft_size, self.hop_size, window=self.window, return_complex=True)
        return spec.abs()

    def forward(self, input, target):
        self.window = self.window.to(input.device)
        return (self.stft(input.float()) - self.stft(target.float())).abs().mean()
