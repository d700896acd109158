from .layers import AdaptiveAdditionPredictor, Block
from .casee import CasEE, TypeCls

__all__ = ["AdaptiveAdditionPredictor", "Block", "CasEE", "TypeCls"]
