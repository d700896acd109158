"""The CPU stand-in for .cuda(): installed in every validation worker, suspended for the stage
on a GPU (so that stage's constructor and forward reach the GPU)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_the_stand_in_keeps_constructors_on_the_cpu_and_suspending_it_restores_torch():
    # a fresh interpreter: the stand-in patches torch for the whole process
    script = textwrap.dedent(
        """
        import torch
        from codemod.validate import cuda_standin

        real = (torch.Tensor.cuda, torch.Tensor.to, torch.nn.Module.to, torch.cuda.FloatTensor, torch.zeros)
        assert cuda_standin.install() and not cuda_standin.install()
        assert cuda_standin.install_factories()
        assert torch.ones(2).cuda().device.type == "cpu"
        assert torch.ones(2).to("cuda").device.type == "cpu"
        assert torch.nn.Linear(2, 2).to("cuda:0").weight.device.type == "cpu"
        assert torch.cuda.FloatTensor([1.0]).device.type == "cpu"
        assert torch.zeros(2, device="cuda").device.type == "cpu"
        assert torch.ones(2).to(0).device.type == "cpu"  # a bare index: the accelerator's device 0
        assert torch.ones(2).to(torch.float64).dtype == torch.float64
        assert cuda_standin.used() == 6
        with cuda_standin.suspended():
            now = (torch.Tensor.cuda, torch.Tensor.to, torch.nn.Module.to, torch.cuda.FloatTensor, torch.zeros)
            assert now == real, now
            # what a constructor leaves on the GPU in the GPU stage is not a reason to patch again
            assert not cuda_standin.install_factories()
            assert not cuda_standin.holds_cuda_tensors(torch.nn.Linear(2, 2))
        assert torch.ones(2).cuda().device.type == "cpu" and torch.zeros(2, device="cuda").device.type == "cpu"
        assert torch.Tensor.cuda is not real[0] and torch.zeros is not real[4]
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_device_queries_at_import_name_device_zero_where_there_is_no_gpu():
    # `torch.cuda.current_device()` at a module's top level (a driver work-around) raises on a
    # CPU build; under the stand-in it names device 0, and set_device/synchronize do nothing
    script = textwrap.dedent(
        """
        import torch
        from codemod.validate import cuda_standin

        if torch.cuda.is_available():
            print("ok")
            raise SystemExit
        try:
            torch.cuda.current_device()
        except (AssertionError, RuntimeError):
            pass
        else:
            raise SystemExit("current_device() ran without CUDA before the stand-in")
        real = torch.cuda.current_device
        cuda_standin.install()
        assert torch.cuda.current_device() == 0
        torch.cuda.set_device(0)
        torch.cuda.synchronize()
        assert cuda_standin.used() == 3
        with cuda_standin.suspended():
            assert torch.cuda.current_device is real
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr


def test_a_cuda_build_without_a_gpu_is_recognised_as_wanting_cuda_too():
    from codemod.validate import cuda_standin

    # what torch's CPU build and its CUDA build (on a machine without a driver) raise for
    # `torch.zeros(3, device="cuda:0")`
    assert cuda_standin.needs_cuda(AssertionError("Torch not compiled with CUDA enabled"))
    assert cuda_standin.needs_cuda(RuntimeError(
        "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver "
        "from http://www.nvidia.com/Download/index.aspx"))
    assert not cuda_standin.needs_cuda(RuntimeError("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"))
