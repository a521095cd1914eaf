import torch
from tinygpt.model import GPT, top_k_logits


def test_forward_shapes():
    for b, t, d_model in ((2, 5, 16), (3, 8, 24), (1, 7, 16)):
        model = GPT(vocab_size=11, d_model=d_model, n_heads=4, n_layers=2, block_size=8)
        idx = torch.randint(0, 11, (b, t))
        logits, loss = model(idx)
        assert logits.shape == (b, t, 11) and loss is None
        logits, loss = model(idx, torch.randint(0, 11, (b, t)))
        assert loss.ndim == 0


def test_generate():
    model = GPT(vocab_size=11, d_model=16, n_heads=4, n_layers=2, block_size=8)
    for b, t, new in ((2, 3, 4), (1, 5, 2), (3, 2, 7)):
        out = model.generate(torch.randint(0, 11, (b, t)), max_new_tokens=new)
        assert out.shape == (b, t + new)


def test_top_k():
    for shape in ((4, 11), (2, 3, 11)):
        out = top_k_logits(torch.randn(*shape), 3)
        assert out.shape == shape
