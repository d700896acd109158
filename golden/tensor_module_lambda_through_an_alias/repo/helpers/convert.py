import torch


def to_float(x):
    if x.dtype == torch.float32:
        return x
    return x.float()


numpy_to_tensor = lambda x: to_float(torch.from_numpy(x))  # noqa: E731
tensor_to_numpy = lambda x: x.cpu().numpy()  # noqa: E731
