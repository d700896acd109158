"""codemod: turn raw tensor attributes of nn.Module constructors into buffers and parameters."""

__version__ = "0.1.0"
