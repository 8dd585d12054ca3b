"""A small Llama decoder block in PyTorch (the way Hugging Face writes one): RMSNorm by ``rsqrt``, Q/K/V projections,
rotary by ``rotate_half``, grouped K/V heads repeated, causal ``scaled_dot_product_attention``, the output
projection and a SiLU-gated MLP, both residual.  Imported only where torch is."""

from __future__ import annotations


def block(torch, d=64, heads=4, kv_heads=2, inter=128, positions=64, seq=7):
    """(the module in eval mode, an example input (1, seq, d))."""
    nn = torch.nn
    torch.manual_seed(0)

    class RMSNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d))

        def forward(self, x):
            return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5))

    def rotate_half(x):
        half = x.shape[-1] // 2
        return torch.cat([-x[..., half:], x[..., :half]], -1)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = d // heads
            self.norm1, self.norm2 = RMSNorm(), RMSNorm()
            self.q = nn.Linear(d, d, bias=False)
            self.k = nn.Linear(d, kv_heads * self.head, bias=False)
            self.v = nn.Linear(d, kv_heads * self.head, bias=False)
            self.o = nn.Linear(d, d, bias=False)
            self.gate = nn.Linear(d, inter, bias=False)
            self.up = nn.Linear(d, inter, bias=False)
            self.down = nn.Linear(inter, d, bias=False)
            inv = 1.0 / (10000 ** (torch.arange(0, self.head, 2).float() / self.head))
            angles = torch.arange(positions).float()[:, None] * inv[None]
            angles = torch.cat([angles, angles], -1)
            self.register_buffer("cos", angles.cos())
            self.register_buffer("sin", angles.sin())

        def forward(self, x):
            b, s, _ = x.shape
            h = self.norm1(x)
            q = self.q(h).view(b, s, heads, self.head).transpose(1, 2)
            k = self.k(h).view(b, s, kv_heads, self.head).transpose(1, 2)
            v = self.v(h).view(b, s, kv_heads, self.head).transpose(1, 2)
            cos, sin = self.cos[:s], self.sin[:s]
            q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
            k, v = (t.repeat_interleave(heads // kv_heads, 1) for t in (k, v))
            a = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.o(a.transpose(1, 2).reshape(b, s, d))
            h = self.norm2(x)
            return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))

    return Block().eval(), torch.randn(1, seq, d)
