"""A buffer and a parameter, both registered through register_* calls: nothing to do."""

import torch
import torch.nn as nn


class MyModel(nn.Module):
    def __init__(self):
        super(MyModel, self).__init__()

        buffer = torch.randn(2, 3)  # tensor
        param = nn.Parameter(torch.randn(3, 3))  # 普通 Parameter 对象
        self.register_buffer('my_buffer', buffer)
        self.register_parameter("param", param)

    def forward(self, x):
        # 可以通过 self.param 和 self.my_buffer 访问
        pass


if __name__ == "__main__":
    model = MyModel()
    for param in model.parameters():
        print(param)
    print("----------------")
    for buffer in model.buffers():
        print(buffer)
    print("----------------")
    print(model.state_dict())
