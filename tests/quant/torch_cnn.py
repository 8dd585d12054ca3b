"""A small image classifier in PyTorch for the end-to-end Conv tests: a stride-2 RGB stem with BatchNorm and ReLU,
MaxPool, a ResNet basic block, MobileNetV2 inverted residuals (pointwise, depthwise, ReLU6, a linear bottleneck)
with 24 and 40 channels (not multiples of 16), a strided Conv with a bias, global average pooling and a Linear
head.  BatchNorm's statistics are drawn away from their defaults so that folding them changes bits."""

from __future__ import annotations


def net(seed: int = 0):
    import torch
    from torch import nn

    class Inverted(nn.Module):
        def __init__(self, c, expand):
            super().__init__()
            h = c * expand
            self.body = nn.Sequential(
                nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
                nn.Conv2d(h, h, 3, padding=1, groups=h, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
                nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c),
            )  # fmt: skip

        def forward(self, x):
            return x + self.body(x)

    class Basic(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c1, self.n1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
            self.c2, self.n2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

        def forward(self, x):
            return torch.relu(x + self.n2(self.c2(torch.relu(self.n1(self.c1(x))))))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 24, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(24),
                                      nn.ReLU(), nn.MaxPool2d(3, 2, 1))  # fmt: skip
            self.body = nn.Sequential(Basic(24), Inverted(24, 2), nn.Conv2d(24, 40, 3, stride=2, padding=1),
                                      Inverted(40, 3), Basic(40))  # fmt: skip
            self.head = nn.Linear(40, 10)

        def forward(self, x):
            x = self.body(self.stem(x))
            return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    torch.manual_seed(seed)
    model = Net().eval()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    return model
