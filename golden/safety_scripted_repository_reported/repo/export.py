import torch

from input import Scale

model = torch.jit.script(Scale(4))
torch.jit.save(model, "scale.pt")
