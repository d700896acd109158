"""A raw tensor attribute beside a registered buffer and a parameter."""

import torch
import torch.nn as nn


class MyModel(nn.Module):
    def __init__(self):
        super(MyModel, self).__init__()
        self.register_buffer(
            "my_tensor", torch.randn(1), persistent=False
        ) # 参数直接作为模型类成员变量
        self.register_buffer('my_buffer', torch.randn(1)) # 参数注册为 buffer
        self.my_param = nn.Parameter(torch.randn(1))

    def forward(self, x):
            return x


if __name__ == "__main__":
    model = MyModel()
    print(model.state_dict())
    model.cuda()
    print(model.my_tensor)
    print(model.my_buffer)
