import torch

from input import Flow, Scale

flow = Flow(tau_par=torch.nn.Parameter(torch.tensor([0.1])))
scale = Scale(torch.ones(1))
