#!/usr/bin/env python3
"""Build the small ONNX models that sim/tests/plan.rs compiles with `tigris compile`.

Usage: make_models.py OUT_DIR

Writes one OUT_DIR/<name>.onnx per model below and prints their names, one a line. Needs only the
standard library and the `onnx` package; weights come from a fixed-seed generator so every run writes
the same files.
"""

import random
import sys
from pathlib import Path

import onnx
from onnx import TensorProto, helper

OPSET = 13


class Graph:
    """Collects nodes and initializers; names every node so `--keep-names` plans can be compared."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.nodes = []
        self.inits = []
        self.count = 0

    def name(self, kind):
        self.count += 1
        return f"{kind.lower()}{self.count}"

    def const(self, name, dims, dtype=TensorProto.FLOAT, values=None):
        n = 1
        for d in dims:
            n *= d
        if values is None:
            if dtype == TensorProto.FLOAT:
                values = [self.rng.uniform(-0.5, 0.5) for _ in range(n)]
            elif dtype == TensorProto.INT8:
                values = [self.rng.randint(-100, 100) for _ in range(n)]
            else:
                values = [0] * n
        self.inits.append(helper.make_tensor(name, dtype, dims, values))
        return name

    def node(self, op, inputs, **attrs):
        name = self.name(op)
        out = f"{name}_out"
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out

    def conv(self, x, cin, cout, k=3, stride=1, dilation=1, group=1):
        name = self.name("w")
        w = self.const(f"{name}_weight", [cout, cin // group, k, k])
        b = self.const(f"{name}_bias", [cout])
        pad = (k - 1) * dilation // 2
        return self.node("Conv", [x, w, b], kernel_shape=[k, k], strides=[stride, stride],
                         pads=[pad, pad, pad, pad], dilations=[dilation, dilation], group=group)

    def save(self, path, graph_name, inputs, outputs):
        graph = helper.make_graph(self.nodes, graph_name, inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, str(path))


def value(name, dims, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, dims)


def convstack(path):
    """Float conv stack on 3x64x64: 3x3 convs, a stride-2 conv, a pool, then GAP and a dense head.
    Small budgets force tiling and chains."""
    g = Graph(1)
    x = g.node("Relu", [g.conv("input", 3, 8)])
    x = g.node("Relu", [g.conv(x, 8, 8)])
    x = g.node("Relu", [g.conv(x, 8, 16, stride=2)])
    x = g.node("Relu", [g.conv(x, 16, 16)])
    x = g.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = g.node("Relu", [g.conv(x, 16, 16)])
    x = g.node("GlobalAveragePool", [x])
    x = g.node("Flatten", [x], axis=1)
    w = g.const("head_weight", [10, 16])
    b = g.const("head_bias", [10])
    g.nodes.append(helper.make_node("Gemm", [x, w, b], ["output"], name="head", transB=1))
    g.save(path, "convstack", [value("input", [1, 3, 64, 64])], [value("output", [1, 10])])


def convstack_qdq(path):
    """The int8 QDQ form of a conv stack: activations through QuantizeLinear/DequantizeLinear pairs,
    int8 per-channel weights through DequantizeLinear."""
    g = Graph(2)
    scale = g.const("act_scale", [], values=[0.05])
    zp = g.const("act_zp", [], TensorProto.INT8, values=[0])

    def qdq(x):
        q = g.node("QuantizeLinear", [x, scale, zp])
        return g.node("DequantizeLinear", [q, scale, zp])

    def qconv(x, cin, cout, stride=1):
        name = g.name("qw")
        wq = g.const(f"{name}_weight_q", [cout, cin, 3, 3], TensorProto.INT8)
        ws = g.const(f"{name}_weight_scale", [cout], values=[0.01 + 0.001 * i for i in range(cout)])
        wz = g.const(f"{name}_weight_zp", [cout], TensorProto.INT8, values=[0] * cout)
        w = g.node("DequantizeLinear", [wq, ws, wz], axis=0)
        b = g.const(f"{name}_bias", [cout])
        y = g.node("Conv", [x, w, b], kernel_shape=[3, 3], strides=[stride, stride], pads=[1, 1, 1, 1])
        return qdq(g.node("Relu", [y]))

    x = qdq("input")
    x = qconv(x, 3, 8)
    x = qconv(x, 8, 8)
    x = qconv(x, 8, 16, stride=2)
    x = qconv(x, 16, 16)
    x = qdq(g.node("GlobalAveragePool", [x]))
    q = g.node("QuantizeLinear", [x, scale, zp])
    g.nodes.append(helper.make_node("DequantizeLinear", [q, scale, zp], ["output"], name="out_dq"))
    g.save(path, "convstack_qdq", [value("input", [1, 3, 96, 96])], [value("output", [1, 16, 1, 1])])


def residual(path):
    """A residual block: two convs whose result is added to their input, then a pool and a conv."""
    g = Graph(3)
    stem = g.node("Relu", [g.conv("input", 3, 16)])
    y = g.node("Relu", [g.conv(stem, 16, 16)])
    y = g.conv(y, 16, 16)
    x = g.node("Relu", [g.node("Add", [stem, y])])
    x = g.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    x = g.conv(x, 16, 8)
    g.nodes.append(helper.make_node("Relu", [x], ["output"], name="out_relu"))
    g.save(path, "residual", [value("input", [1, 3, 48, 48])], [value("output", [1, 8, 24, 24])])


def depthwise(path):
    """Depthwise 3x3, a dilated 3x3, a 5x5 and an average pool: other receptive-field shapes."""
    g = Graph(4)
    x = g.node("Relu", [g.conv("input", 8, 8, group=8)])
    x = g.node("Relu", [g.conv(x, 8, 8, dilation=2)])
    x = g.node("Relu", [g.conv(x, 8, 8, k=5)])
    x = g.node("AveragePool", [x], kernel_shape=[2, 2], strides=[2, 2])
    g.nodes.append(helper.make_node("Relu", [g.conv(x, 8, 4, k=1)], ["output"], name="out_relu"))
    g.save(path, "depthwise", [value("input", [1, 8, 64, 64])], [value("output", [1, 4, 32, 32])])


def wide_gap(path):
    """Convs widening to 64 channels, then a global average pool whose rows do not fit a small budget:
    the planner then groups channels and spatial intervals, which the compiler writes as schema 10
    (32-byte tile plans)."""
    g = Graph(5)
    x = g.node("Relu", [g.conv("input", 4, 16)])
    x = g.node("Relu", [g.conv(x, 16, 64)])
    g.nodes.append(helper.make_node("GlobalAveragePool", [x], ["output"], name="gap"))
    g.save(path, "wide_gap", [value("input", [1, 4, 32, 32])], [value("output", [1, 64, 1, 1])])


def layouts(path):
    """Layout work between convs: a transpose of H and W, a reshape to rows of 1024 for a softmax and
    back, then a 1x1 conv to 256 channels whose global pool needs channel groups at small budgets,
    so the plan is schema 10 with banded transposes, reshapes and layout conversions."""
    g = Graph(6)
    x = g.node("Relu", [g.conv("input", 4, 64)])
    x = g.node("Relu", [g.node("Transpose", [x], perm=[0, 1, 3, 2])])
    x = g.node("Reshape", [x, g.const("rows", [3], TensorProto.INT64, values=[1, 64, 1024])])
    x = g.node("Softmax", [x], axis=-1)
    x = g.node("Reshape", [x, g.const("planes", [4], TensorProto.INT64, values=[1, 64, 32, 32])])
    x = g.conv(x, 64, 256, k=1)
    g.nodes.append(helper.make_node("GlobalAveragePool", [x], ["output"], name="gap"))
    g.save(path, "layouts", [value("input", [1, 4, 32, 32])], [value("output", [1, 256, 1, 1])])


def control(path):
    """An If whose branches are a Relu and a Sigmoid of the input: the plan gets subgraphs (schema 10)."""
    shape = [1, 4, 8, 8]

    def branch(op, name):
        node = helper.make_node(op, ["x"], [f"y_{name}"], name=f"{name}_{op.lower()}")
        return helper.make_graph([node], name, [], [value(f"y_{name}", shape)])

    g = Graph(7)
    g.nodes.append(helper.make_node("If", ["cond"], ["y"], name="if0", then_branch=branch("Relu", "then"),
                                    else_branch=branch("Sigmoid", "else")))
    g.nodes.append(helper.make_node("Sigmoid", ["y"], ["output"], name="out_sigmoid"))
    g.save(path, "control", [value("cond", [], TensorProto.BOOL), value("x", shape)], [value("output", shape)])


MODELS = {
    "convstack": convstack,
    "convstack_qdq": convstack_qdq,
    "residual": residual,
    "depthwise": depthwise,
    "wide_gap": wide_gap,
    "layouts": layouts,
    "control": control,
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, build in MODELS.items():
        build(out / f"{name}.onnx")
        print(name)


if __name__ == "__main__":
    main()
