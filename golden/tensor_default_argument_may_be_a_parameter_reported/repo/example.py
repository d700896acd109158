import torch

from input import Flow

flow = Flow(tau_par=torch.nn.Parameter(torch.tensor([0.1])))
