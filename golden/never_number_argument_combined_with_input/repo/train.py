from input import Scaled


def build(config):
    return Scaled(8, gain=0.5, shift=config["shift"])

