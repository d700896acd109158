import torch

from input import PromptedClassifier

model = PromptedClassifier(4, 3)
model_optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
temperature_optimizer = torch.optim.Adam([model.temperature], lr=0.01)
