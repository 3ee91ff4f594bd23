"""``mindspore.safeguard``: checkpoint weight obfuscation (``obfuscate_ckpt``,
``load_obf_params_into_net``)."""
from ._obfuscation import load_obf_params_into_net, obfuscate_ckpt

__all__ = ["obfuscate_ckpt", "load_obf_params_into_net"]
