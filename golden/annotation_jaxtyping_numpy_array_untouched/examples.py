import numpy as np

from codemod.examples import example

example("input.Binner", np.linspace(0.0, 1.0, 5))
