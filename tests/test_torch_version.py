"""The torch versions a repository declares (codemod/torch_version.py): a rewrite that needs
torch 1.6 is reported where every declared torch is older (rules/old_torch.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemod.torch_version import too_old_torch


def _repo(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("files, declared", [
    ({"requirements.txt": "numpy\ntorch==1.0.1\n"}, "torch==1.0.1 (requirements.txt)"),
    ({"requirements.txt": "torch>=1.0,<1.5  # old CUDA\n"}, "torch>=1.0,<1.5 (requirements.txt)"),
    ({"environment.yml": "name: pytorch\nchannels:\n  - pytorch\ndependencies:\n"
                         "  - pytorch=1.0.1=py3.7_cuda9.0.176_cudnn7.4.2_2\n"}, "torch=1.0.1 (environment.yml)"),
    ({"setup.py": "setup(install_requires=['torch<=1.5.1', 'numpy'])\n"}, "torch<=1.5.1 (setup.py)"),
    ({"README.md": "Install it:\n\n    conda install pytorch=0.3.1 cuda90 -c pytorch\n"}, "torch=0.3.1 (README.md)"),
    # the file a README's install command names, outside the root
    ({"README.md": "Create the environment with `conda env create -f docker/environment.yml`.\n",
      "docker/environment.yml": "dependencies:\n  - python=3.6\n  - pip:\n    - torch==1.0.1\n"},
     "torch==1.0.1 (docker/environment.yml)"),
    ({"README.md": "pip install -r envs/requirements-gpu.txt\n", "envs/requirements-gpu.txt": "torch==1.4.0\n"},
     "torch==1.4.0 (envs/requirements-gpu.txt)"),
    # a conda environment file at the root under a name of its own
    ({"if-net_env.yml": "name: if-net\nchannels:\n  - pytorch\ndependencies:\n  - pytorch=1.1.0=py3.7_cuda10.0\n"},
     "torch=1.1.0 (if-net_env.yml)"),
    # torch with no version elsewhere says nothing against a file that pins an old one
    ({"requirements.txt": "torch==1.4\n", "pyproject.toml": "[project]\ndependencies = ['torch']\n"},
     "torch==1.4 (requirements.txt)"),
    ({"requirements.txt": "torch==1.4.0\n", "environment.yml": "dependencies:\n  - pytorch\n"},
     "torch==1.4.0 (requirements.txt)"),
    # nothing declared: what the README says the code was written for
    ({"README.md": "We used PyTorch 1.0.0 and CUDA 9.0 for the experiments.\n"}, "torch==1.0.0 (README.md)"),
    ({"README.md": "The code was written in Pytorch 0.2 and Python 2.\n"}, "torch==0.2 (README.md)"),
    # an install command with no version does not contradict what the README says was used
    ({"README.md": "pip install torch torchvision\n\nTested with PyTorch 0.4.\n"}, "torch==0.4 (README.md)"),
    ({"README.md": "We used PyTorch 1.0.0.\n", "requirements.txt": "torch\nnumpy\n"}, "torch==1.0.0 (README.md)"),
])
def test_a_repository_that_declares_only_torch_older_than_1_6(tmp_path, files, declared):
    assert too_old_torch(_repo(tmp_path, files)) == declared


@pytest.mark.parametrize("files", [
    {},  # nothing declared
    {"requirements.txt": "torch\n"},  # any torch
    {"requirements.txt": "torch>=1.0\n"},  # no upper bound
    {"requirements.txt": "torch==1.8.1+cu111\n"},  # a local build of a current release
    {"requirements.txt": "torch~=1.4\n"},  # 1.4 up to 2.0: 1.6 is allowed
    {"README.md": "Requires PyTorch 1.4 or higher.\n"},  # prose that opens the range upwards
    {"README.md": "Requires PyTorch 1.8.\n"},
    {"README.md": "Tested with PyTorch 0.4.\n", "requirements.txt": "torch>=1.0\n"},  # a declared range wins over prose
    {"requirements.txt": "torch==2.0.0.dev20221212\n"},  # a pre-release of a torch that has them
    {"environment.yml": "channels:\n  - pytorch\ndependencies:\n  - pytorch\n  - python=3.7\n"},
    {"setup.py": "from torch.utils.cpp_extension import BuildExtension\nsetup(name='x')\n"},
    # a named file that allows a current torch, beside an old pin at the root
    {"requirements.txt": "torch==1.4\n", "README.md": "conda env create -f docker/environment.yml\n",
     "docker/environment.yml": "dependencies:\n  - pytorch>=1.4\n"},
    # a root YAML file that is no environment file (no `dependencies:`) says nothing
    {"config.yml": "model:\n  note: trained with torch==1.1.0\n"},
    # a named file outside the repository is not read
    {"README.md": "conda env create -f ../shared/environment.yml\n"},
])
def test_a_repository_that_allows_a_current_torch_or_says_nothing(tmp_path, files):
    assert too_old_torch(_repo(tmp_path, files)) is None


def test_no_root_declares_nothing():
    assert too_old_torch(None) is None
