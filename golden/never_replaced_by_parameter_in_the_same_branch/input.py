"""A raw tensor made in one arm of an `if` and turned into an nn.Parameter on the next line of
the same arm (`self.weight_tensor = nn.Parameter(init(self.weight_tensor))`): whenever the raw
binding runs, the Parameter assignment runs after it, so it is a step of the construction and
there is nothing to rewrite. A raw tensor whose Parameter is in the other arm is another
matter (parameter_or_raw_branch_persistent_buffer)."""

import torch
import torch.nn as nn


class GraphLearner(nn.Module):
    def __init__(self, input_size, num_pers=4, metric_type="weighted_cosine"):
        super().__init__()
        self.metric_type = metric_type
        if metric_type == "weighted_cosine":
            self.weight_tensor = torch.Tensor(num_pers, input_size)
            self.weight_tensor = nn.Parameter(nn.init.xavier_uniform_(self.weight_tensor))
        else:
            self.linear = nn.Linear(input_size, input_size)

    def forward(self, x):
        if self.metric_type == "weighted_cosine":
            return (x.unsqueeze(0) * self.weight_tensor.unsqueeze(1)).mean(0)
        return self.linear(x)
