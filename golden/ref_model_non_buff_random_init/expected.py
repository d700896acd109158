"""A parameter, a registered buffer and a raw random tensor that model.cuda() leaves behind."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.param = nn.Parameter(torch.randn([2, 2]))
        buff = torch.randn([2, 2])
        self.register_buffer('buff', buff)
        self.register_buffer("non_buff", torch.randn([2, 2]), persistent=False)

    def forward(self, x):
        return x


if __name__ == "__main__":
    model = Model()
    print(model.param.device)  # cpu
    print(model.buff.device)  # cpu
    print(model.non_buff.device)  # cpu
    print(model.state_dict())
    for name, param in model.named_buffers():
        print(name, param.data)
    model.cuda()
    print(model.param.device)  # cuda:0
    print(model.buff.device)  # cuda:0
    print(model.non_buff.device)  # cpu
