"""``spore.onnx`` (``mindspore.onnx``): export a network as an ONNX model
(NOTE: [ONNX export] in spore/train/_onnx_export.py)."""
from __future__ import annotations

import os

__all__ = ["export"]


def export(net, *inputs, file_name, input_names=None, output_names=None, export_params=True,
           keep_initializers_as_inputs=False, dynamic_axes=None):
    """Write ``net`` traced in inference mode on the example ``inputs`` as an ONNX model
    (opset 17); ``file_name`` gets the ``.onnx`` suffix when it has none. Parameters are
    initializers (also graph inputs with ``keep_initializers_as_inputs``; graph inputs
    only with ``export_params=False``)."""
    from .nn import Cell
    from .train.mindir import _check_export_inputs, _check_file_name
    from .train._onnx_export import export_onnx
    if not isinstance(net, Cell):
        raise ValueError(f"For 'export', the parameter 'net' must be a Cell, but got "
                         f"{type(net).__name__}.")
    for what, value in (("input_names", input_names), ("output_names", output_names)):
        if value is not None and not isinstance(value, list):
            raise ValueError(f"For 'export', the parameter '{what}' must be a list, but got "
                             f"{type(value).__name__}.")
    if dynamic_axes is not None:
        if not isinstance(dynamic_axes, dict):
            raise ValueError(f"For 'export', the parameter 'dynamic_axes' must be a dict, but "
                             f"got {type(dynamic_axes).__name__}.")
        if dynamic_axes:
            raise NotImplementedError("spore.onnx.export writes the example inputs' shapes; "
                                      "dynamic_axes are not supported yet")
    _check_file_name(file_name, "export")
    _check_export_inputs(inputs)
    if not os.path.splitext(file_name)[1]:
        file_name += ".onnx"
    parent = os.path.dirname(os.path.abspath(file_name))
    os.makedirs(parent, exist_ok=True)
    export_onnx(net, inputs, file_name, input_names, output_names, export_params,
                keep_initializers_as_inputs)
