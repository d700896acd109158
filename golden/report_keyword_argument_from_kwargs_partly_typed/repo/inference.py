from input import PanSharpener


def main(name):
    stats = eval(name)()
    return PanSharpener(3, mean=stats.mean, std=stats.std)
