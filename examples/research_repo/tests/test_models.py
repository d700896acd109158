import torch

from eventx import CasEE, EventConfig, TypeCls


def test_casee_forward_shapes():
    config = EventConfig()
    model = CasEE(config).eval()
    text = torch.randn(2, 7, config.hidden_size)
    mask = torch.ones(2, 7)
    p_type, type_emb = model(text, mask)
    assert p_type.shape == (2, config.type_num)
    assert type_emb.shape == (config.type_num, config.hidden_size)


def test_type_cls_probabilities():
    config = EventConfig(type_num=3)
    p_type, _ = TypeCls(config).eval()(torch.randn(1, 4, config.hidden_size), torch.ones(1, 4))
    assert ((p_type >= 0) & (p_type <= 1)).all()
