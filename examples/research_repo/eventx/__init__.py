"""Event extraction models (a demonstration repository for codemod)."""

from eventx.config import EventConfig
from eventx.models import CasEE, TypeCls

__all__ = ["CasEE", "EventConfig", "TypeCls"]
