"""A module whose only state is a Linear layer, saved and loaded through its state_dict."""

import torch
import torch.nn as nn


class MyModule(nn.Module):
    def __init__(self, input_size=4, output_size=2):
        super(MyModule, self).__init__()
        self.lin = nn.Linear(input_size, output_size)

    def forward(self, x):
        return self.lin(x)


if __name__ == "__main__":
    PATH = "my_module.pt"
    module = MyModule(4, 2)
    print(module.state_dict())

    # save
    torch.save(module.state_dict(), PATH)

    # load
    model = MyModule(4, 2)
    model.load_state_dict(torch.load(PATH))
    model.eval()
