"""Networks and edits whose rewrite nodes Spore and MindSpore agree on: run as
``python reference_net.py spore|mindspore``, prints the nodes, users and code as JSON."""
import sys
import json
FW = sys.argv[1]
ms = __import__(FW)
nn = ms.nn
from importlib import import_module
rw = import_module(FW + ".rewrite")


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = nn.Dense(4, 4)
        self.act = nn.ReLU()

    def construct(self, x):
        return self.act(self.d(x))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.fc1 = nn.Dense(4, 4)
        self.fc2 = nn.Dense(4, 2)
        self.relu = nn.ReLU()

    def construct(self, x, y=2):
        x = self.block(x)
        x = self.relu(self.fc1(x))
        z = x * y + 1
        if self.training:
            z = z - 1
        for _ in range(2):
            z = z + x
        a = -z
        s = a[0]
        w = x.shape
        return self.fc2(a), s


tree = rw.SymbolTree.create(Net())
new = rw.Node.create_call_cell(nn.Tanh(), targets=["x"],
                               args=[rw.ScopedValue.create_naming_value("x")], name="tanh")
tree.insert(tree.after(tree.get_node("fc1")), new)
tree.erase(tree.get_node("relu"))
rows = [[n.get_name(), n.get_node_type().name, [str(t) for t in n.get_targets()],
         [str(a) for a in n.get_args()], sorted(u.get_name() for u in n.get_users())]
        for n in tree.nodes()]
code = tree.get_code()
body = code[code.index("class NetOpt"):]
body = body[body.index("    def construct"):].split("\n#")[0].strip()
sub = [[n.get_name(), n.get_node_type().name] for n in tree.get_node("block").get_sub_tree().nodes()]
print(json.dumps({"rows": rows, "construct": body, "sub": sub}))
