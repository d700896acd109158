"""A tensor literal kept as a plain attribute does not follow module.cuda()."""

import torch


class ToyModule(torch.nn.Module):
    def __init__(self) -> None:
        super(ToyModule, self).__init__()
        self.layer = torch.nn.Linear(2, 2)
        self.register_buffer(
            "expected_moved_cuda_tensor", torch.tensor([0, 2, 3]), persistent=False
        )

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return self.layer(input)


if __name__ == "__main__":
    toy_module = ToyModule()
    toy_module.cuda()
    print(next(toy_module.layer.parameters()).device)
    print(toy_module.expected_moved_cuda_tensor.device)
