"""Write the public names of MindSpore 2.10, module by module, for the API-surface test.

Run once with the reference MindSpore's interpreter (Spore never imports MindSpore)::

    cd /tmp && /work/msref/bin/python /work/main/tools/gen_api_surface.py \
        /work/main/tests/data/api_surface/mindspore_2_10.json

A module's public names are what ``dir(module)`` shows without a leading underscore:
what a program can reach as ``module.name``. ``__all__`` is not used because MindSpore's
lists both miss reachable names and name things the module does not have (``mint.__all__``
lists ``Conv2d``, which lives in ``mint.nn``). Each name is stored with its kind (class,
function, module or value) and the module that defines it, so the test and the docs can
tell MindSpore's API from names its modules merely import.
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


def origin_of(value):
    """The module that defines ``value`` (a module's own name): tells MindSpore's API from
    what its modules merely import (``os``, ``numpy``, validators)."""
    if isinstance(value, types.ModuleType):
        return value.__name__
    origin = getattr(value, "__module__", None)
    return origin if isinstance(origin, str) else type(value).__module__


def public_names(module_name):
    """{name: [kind, origin]} of the public names of one module."""
    module = importlib.import_module(module_name)
    names = {}
    for name in sorted(dir(module)):
        if name.startswith("_") or name in NOT_API:
            continue
        value = getattr(module, name)
        names[name] = [kind_of(value), origin_of(value)]
    return names


def dumps(surface):
    """JSON with one name per line, so a diff of two versions reads name by name."""
    modules = []
    for module, names in surface["modules"].items():
        rows = ",\n".join(f"   {json.dumps(n)}: {json.dumps(v)}" for n, v in names.items())
        modules.append(f"  {json.dumps(module)}: {{\n{rows}\n  }}")
    return ('{\n "version": ' + json.dumps(surface["version"]) + ',\n "modules": {\n'
            + ",\n".join(modules) + "\n }\n}\n")


def main(out_path):
    import mindspore
    surface = {"version": mindspore.__version__,
               "modules": {name: public_names(name) for name in MODULES}}
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(dumps(surface))
    for name, names in surface["modules"].items():
        print(f"{name}: {len(names)}")


if __name__ == "__main__":
    main(sys.argv[1])
