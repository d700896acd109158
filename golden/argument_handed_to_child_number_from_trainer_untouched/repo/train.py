from input import Head


class Trainer:
    def __init__(self, temperature=0.07):
        self.temperature = temperature

    def build(self):
        return Head(8, self.temperature)
