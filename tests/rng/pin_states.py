"""Prints generator states taken from real torch, base64-encoded, for tests/parity/cases_random.py (PINNED_STATES).

Each state is get_rng_state() after a short recipe, so cases can load torch's own bytes into wick (and into
torch) and compare what both draw next: the torch -> wick direction of the state round trip."""
import base64

import torch

RECIPES = {
    # the cached double normal is valid (randn(5): five Box-Muller samples from the scalar path)
    "after_randn5": lambda: (torch.manual_seed(20260401), torch.randn(5), torch.rand(7)),
    # mid-way through the 624 words, no cache
    "after_rand1000": lambda: (torch.manual_seed(2 ** 40 + 3), torch.rand(1000)),
    # a fresh Generator() (seed 67280421310721) after 3 draws
    "generator_3": lambda: (torch.default_generator.set_state(torch.Generator().get_state()), torch.randint(5, (3,))),
}

if __name__ == "__main__":
    for name, fn in RECIPES.items():
        fn()
        b = base64.b64encode(bytes(torch.get_rng_state().tolist())).decode()
        print(f"    {name!r}: (")
        for i in range(0, len(b), 110):
            print(f"        {b[i:i + 110]!r}")
        print("    ),")
