#!/usr/bin/env python3
"""Peer baseline for `bench_mlp --device gpu --no-queue-only` (P9b, P9c): one
SGD training step of the Fashion-MNIST MLP (784-512-256-10, ReLU) or CNN
(conv 5x5 1->32 SAME + bias + ReLU, max pool 2x2/2, conv 5x5 32->64 + bias +
ReLU, max pool 2x2/2, dense 3136->1024 ReLU, dense 1024->10) of `actorflow
train`, sparse softmax cross entropy, SGD lr 0.1, on the GPU with one batch
held there. Each step reads its loss back (loss.item()), as bench_mlp's step
fetches its loss. Full float32: no TF32 in products or convolutions
(bench_mlp's kernels use none); cuDNN picks convolution algorithms by its
heuristics (torch.backends.cudnn.benchmark off), as actorflow does; the CNN
runs channels_last (NHWC), actorflow's layout.

  step_torch_gpu.py [--model mlp|cnn] [--batch 128] [--steps 300] [--rounds 3]

Prints one JSON line: ms_per_step (the best round), samples_per_s.
"""
import argparse, json, time
import torch
import torch.nn as nn
import torch.nn.functional as F


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.ModuleList([nn.Linear(784, 512), nn.Linear(512, 256), nn.Linear(256, 10)])

    def forward(self, x):
        for i, fc in enumerate(self.fc):
            x = fc(x)
            if i < 2:
                x = F.relu(x)
        return x


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 5, padding=2)
        self.conv2 = nn.Conv2d(32, 64, 5, padding=2)
        self.fc1 = nn.Linear(7 * 7 * 64, 1024)
        self.fc2 = nn.Linear(1024, 10)

    def forward(self, x):
        x = x.view(-1, 1, 28, 28).contiguous(memory_format=torch.channels_last)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2, 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2, 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    torch.manual_seed(1)
    model = (Mlp() if a.model == "mlp" else Cnn()).cuda()
    if a.model == "cnn":
        model = model.to(memory_format=torch.channels_last)
    x = torch.rand(a.batch, 784, device="cuda")
    y = torch.randint(0, 10, (a.batch,), device="cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(a.warmup):
        step()
    best = float("inf")
    for r in range(a.rounds):
        start = time.perf_counter()
        for _ in range(a.steps):
            step()
        ms = (time.perf_counter() - start) * 1e3 / a.steps
        print("round %d: %.3f ms per step" % (r + 1, ms))
        best = min(best, ms)
    print(json.dumps({"model": a.model, "batch": a.batch, "ms_per_step": round(best, 3),
                      "samples_per_s": round(a.batch * 1e3 / best, 1),
                      "torch": torch.__version__, "gpu": torch.cuda.get_device_name()}))


if __name__ == "__main__":
    main()
