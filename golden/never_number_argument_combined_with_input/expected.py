import torch
import torch.nn as nn
import torch.nn.functional as F


class Scaled(nn.Module):
    """`x * self.gain` where every call passes a number, and `x + self.shift` where no call
    says: neither is a tensor the analysis can prove, and neither use is evidence to report."""

    def __init__(self, dim, gain, shift):
        super().__init__()
        self.gain = gain
        self.shift = shift
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return self.proj(x * self.gain) + self.shift


class AttentionPool(nn.Module):
    """`num_heads=self.num_heads` handed on with the inputs: nothing types it, and a keyword
    of a torch function is no evidence of a tensor on its own."""

    def __init__(self, dim: int, num_heads: int):
        super().__init__()
        self.num_heads = num_heads
        self.q_proj = nn.Linear(dim, dim)
        self.k_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)
        self.c_proj = nn.Linear(dim, dim)

    def forward(self, x):
        out, _ = F.multi_head_attention_forward(
            query=x,
            key=x,
            value=x,
            embed_dim_to_check=x.shape[-1],
            num_heads=self.num_heads,
            q_proj_weight=self.q_proj.weight,
            k_proj_weight=self.k_proj.weight,
            v_proj_weight=self.v_proj.weight,
            in_proj_weight=None,
            in_proj_bias=torch.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias]),
            bias_k=None,
            bias_v=None,
            add_zero_attn=False,
            dropout_p=0.0,
            out_proj_weight=self.c_proj.weight,
            out_proj_bias=self.c_proj.bias,
            use_separate_proj_weight=True,
        )
        return out


class Pooled(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.pool = AttentionPool(width, heads)

    def forward(self, x):
        return self.pool(x)
