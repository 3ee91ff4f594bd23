"""``mindspore.rewrite``: edit a network's ``construct`` as a list of nodes and build the
edited network (see docs/rewrite.md).

    >>> tree = SymbolTree.create(net)
    >>> relu = Node.create_call_cell(nn.ReLU(), targets=["x"],
    ...                              args=[ScopedValue.create_naming_value("x")], name="relu")
    >>> tree.insert(tree.after(tree.get_node("conv")), relu)
    >>> new_net = tree.get_network()
"""
from .node import Node, NodeType
from .scoped_value import ScopedValue, ValueType
from .symbol_tree import SymbolTree

__all__ = ["SymbolTree", "Node", "NodeType", "ScopedValue", "ValueType"]
