"""A float test graph written node by node, its constants as initializers (the tests that build whole models)."""

import numpy as np
from onnx import helper, numpy_helper


class Nodes:
    """``const``, ``weight`` and ``node`` each add one part and return the name of the value it writes."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.inits, self.nodes = [], []

    def const(self, name, value):
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(self, name, shape, scale=0.2):
        return self.const(name, (self.rng.standard_normal(shape) * scale).astype(np.float32))

    def node(self, op, inputs, output, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [output], **attrs))
        return output
