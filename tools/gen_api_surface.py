"""Write the public names of MindSpore 2.10, module by module, for the API-surface test.

Run once with the reference MindSpore's interpreter (Spore never imports MindSpore)::

    cd /tmp && /work/msref/bin/python /work/main/tools/gen_api_surface.py \
        /work/main/tests/data/api_surface/mindspore_2_10.json

A module's public names are what ``dir(module)`` shows without a leading underscore:
what a program can reach as ``module.name``. ``__all__`` is not used because MindSpore's
lists both miss reachable names and name things the module does not have (``mint.__all__``
lists ``Conv2d``, which lives in ``mint.nn``). Each name is stored with its kind (class,
function, module or value) so the test and the docs can tell them apart.
"""
import importlib
import inspect
import json
import sys
import types

MODULES = (
    "mindspore", "mindspore.ops", "mindspore.nn", "mindspore.numpy", "mindspore.dataset",
    "mindspore.dataset.vision", "mindspore.dataset.transforms", "mindspore.dataset.text",
    "mindspore.train", "mindspore.amp", "mindspore.mint", "mindspore.mint.nn",
    "mindspore.mint.nn.functional", "mindspore.mint.optim", "mindspore.mint.linalg",
    "mindspore.mint.special", "mindspore.communication",
)
# Python's own bookkeeping that shows in dir() of a module using `from __future__ import ...`
NOT_API = {"absolute_import", "division", "print_function"}


def kind_of(value):
    """'module', 'class', 'function' or 'value': what kind of thing a name holds."""
    if isinstance(value, types.ModuleType):
        return "module"
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    return "value"


def public_names(module_name):
    """{name: kind} of the public names of one module."""
    module = importlib.import_module(module_name)
    names = {}
    for name in sorted(dir(module)):
        if name.startswith("_") or name in NOT_API:
            continue
        names[name] = kind_of(getattr(module, name))
    return names


def main(out_path):
    import mindspore
    surface = {"version": mindspore.__version__,
               "modules": {name: public_names(name) for name in MODULES}}
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(surface, f, indent=1, sort_keys=True)
        f.write("\n")
    for name, names in surface["modules"].items():
        print(f"{name}: {len(names)}")


if __name__ == "__main__":
    main(sys.argv[1])
