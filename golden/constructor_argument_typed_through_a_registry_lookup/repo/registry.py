from input import Normalised, Plain

MODELS = {"plain": Plain, "normalised": Normalised}
