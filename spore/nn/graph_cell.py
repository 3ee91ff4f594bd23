"""``nn.GraphCell``: a Cell that runs a graph loaded from a MindIR file (``ms.load``)."""
from __future__ import annotations

from .cell import Cell
from .._parameter import Parameter
from .._tensor import Tensor


class GraphCell(Cell):
    """Runs ``graph`` (from ``ms.load``) as a Cell; its weights are Parameters of this
    Cell, named as in the exporting network, and ``params_init`` (name -> Tensor or
    Parameter) replaces some of them.

    Examples:
        >>> graph = ms.load("net.mindir")
        >>> net = nn.GraphCell(graph)
        >>> out = net(ms.Tensor(x))
    """

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__()
        from ..train.mindir import MindIRGraph
        if not isinstance(graph, MindIRGraph):
            raise TypeError(f"For 'GraphCell', 'graph' must be a graph from 'ms.load', but "
                            f"got {type(graph).__name__}.")
        if obf_random_seed is not None:
            raise NotImplementedError("GraphCell does not run obfuscated graphs")
        self.graph = graph
        params_init = dict(params_init or {})
        self._full_names = {}
        for full, array in graph.parameters.items():
            short = full.rsplit(":", 1)[-1]
            value = params_init.pop(short, params_init.pop(full, None))
            if value is None:
                value = Tensor(array)
            elif not isinstance(value, Tensor):
                raise TypeError(f"For 'GraphCell', 'params_init' values must be Tensors, but "
                                f"{short!r} is {type(value).__name__}.")
            elif tuple(value.shape) != tuple(array.shape):
                raise ValueError(f"For 'GraphCell', 'params_init[{short!r}]' has shape "
                                 f"{list(value.shape)}, the graph's parameter "
                                 f"{list(array.shape)}.")
            param = value if isinstance(value, Parameter) else Parameter(value, name=short)
            self._full_names[full] = param
            self.insert_param_to_cell(short.replace(".", "_"), param,
                                      check_name_contain_dot=False)
        if params_init:
            raise ValueError(f"For 'GraphCell', 'params_init' names parameters the graph "
                             f"does not have: {sorted(params_init)}")

    def construct(self, *inputs):
        return self.graph.run(self._full_names, *inputs)
