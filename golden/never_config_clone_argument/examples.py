import copy

import torch

from codemod.examples import example


class Config(dict):
    def clone(self):
        return copy.deepcopy(self)


example("input.TestTimeAugmentation", Config(), torch.nn.Identity(), inputs=lambda: (torch.ones(2),))
