"""The answer's second fix: the tensor registered as a buffer (any dtype is fine there)."""

import torch


class ToyModule(torch.nn.Module):
    def __init__(self) -> None:
        super(ToyModule, self).__init__()
        self.layer = torch.nn.Linear(2, 2)
        # registering expected_moved_cuda_tensor as a buffer
        # Note: this creates a new member variable named expected_moved_cuda_tensor
        self.register_buffer('expected_moved_cuda_tensor', torch.tensor([0, 2, 3]))

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return self.layer(input)


if __name__ == "__main__":
    toy_module = ToyModule()
    toy_module.cuda()
    print(next(toy_module.layer.parameters()).device)
    print(toy_module.expected_moved_cuda_tensor.device)
