"""(filled in by its family's work)"""
__all__ = []
