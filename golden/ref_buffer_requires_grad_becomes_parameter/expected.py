"""A buffer created with requires_grad=True is never updated by the optimizer: it is meant as a parameter."""

import torch
import torch.nn as nn
import torch.optim as optim


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.param = nn.Parameter(torch.randn([2, 2]))
        buff = torch.randn([2, 2], requires_grad=True)
        self.buff = nn.Parameter(buff)
        self.register_buffer("non_buff", torch.randn([2, 2]), persistent=False)

    def forward(self, x):
        return x


if __name__ == "__main__":
    model = Model()
    for name, param in model.named_parameters():
        print(name, param.data)
    optimizer = optim.SGD(model.parameters(), lr=0.1)
