import numpy as np
from codemod.examples import example

example("input.Policy", np.array([-1.0, -2.0]), np.array([1.0, 2.0]))
