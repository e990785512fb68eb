"""compiler/frontend/target_driver.py and torch_answers.py: the answers a kernel module's
import-time device questions get per target, who asked, and torch answering as itself to its
own modules and outside an import. torch is the tests' stand-in here (the functions these
answers replace, raising as torch does without a GPU); the integration tests
(ImportPerTarget) run the same questions through triton-aot-cc, against the real torch where
TTA_TEST_TORCH_PYTHON names an interpreter that has it."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "compiler", "frontend"))
from triton.backends.compiler import GPUTarget  # noqa: E402

import target_driver  # noqa: E402
from target_driver import NoDeviceError, answering_for, capability, representative  # noqa: E402

CUDA80, CUDA90, GFX942 = GPUTarget("cuda", 80, 32), GPUTarget("cuda", 90, 32), GPUTarget("hip", "gfx942", 64)

# torch: the tests' stand-in (tests/kernels/site-packages/torch), not the real one
STAND_IN = os.path.join(os.path.dirname(__file__), "..", "kernels", "site-packages")


def setUpModule():
    sys.path.insert(0, STAND_IN)


def tearDownModule():
    sys.path.remove(STAND_IN)


class Table(unittest.TestCase):
    def test_capability_as_torch_reports_it(self):
        for target, expected in [(CUDA80, (8, 0)), (CUDA90, (9, 0)), (GPUTarget("cuda", 120, 32), (12, 0)),
                                 (GFX942, (9, 4)), (GPUTarget("hip", "gfx90a", 64), (9, 0)),
                                 (GPUTarget("hip", "gfx950", 64), (9, 5)),
                                 (GPUTarget("hip", "gfx1100", 32), (11, 0)),
                                 (GPUTarget("hip", "gfx1201", 32), (12, 0))]:
            self.assertEqual(capability(target), expected, target)

    def test_an_unlisted_arch_answers_as_the_nearest_older_one(self):
        self.assertEqual(representative(GPUTarget("cuda", 101, 32)).name, "NVIDIA B200")
        self.assertEqual(representative(GPUTarget("cuda", 88, 32)).name, "NVIDIA Jetson AGX Orin")
        self.assertEqual(representative(GPUTarget("hip", "gfx1101", 32)).name, "AMD Radeon RX 7900 XTX")

    def test_triton_and_torch_agree(self):
        name, props = target_driver.representative_gpu(CUDA90)
        import torch_answers
        torch_props = torch_answers.DeviceProperties(CUDA90)
        self.assertEqual(torch_props.name, name)
        self.assertEqual(torch_props.multi_processor_count, props["multiprocessor_count"])
        self.assertEqual(torch_props.shared_memory_per_block_optin, props["max_shared_mem"])
        self.assertEqual(torch_props.warp_size, 32)
        self.assertEqual(torch_answers.DeviceProperties(GFX942).gcnArchName, "gfx942")
        with self.assertRaises(NoDeviceError):
            torch_props.uuid

    def test_a_property_torch_does_not_have_is_missing_as_in_torch(self):
        # FlagGems probes: getattr(props, "max_shared_memory_per_multiprocessor", None)
        import torch_answers
        props = torch_answers.DeviceProperties(CUDA90)
        self.assertIsNone(getattr(props, "max_shared_memory_per_multiprocessor", None))
        self.assertFalse(hasattr(props, "max_shared_memory"))
        with self.assertRaisesRegex(AttributeError, "has no attribute 'max_shared_memory'"):
            props.max_shared_memory
        self.assertEqual(getattr(props, "shared_memory_per_multiprocessor", None), 233472)


class TorchAnswers(unittest.TestCase):
    def ask(self):  # what fla/utils-style modules ask at import
        import torch
        return (torch.cuda.is_available(), torch.cuda.get_device_capability(), torch.cuda.get_device_name(0),
                torch.cuda.get_device_properties(0).multi_processor_count, torch.version.cuda,
                torch.version.hip, torch.cuda.is_bf16_supported())

    def test_each_target_gets_its_own_answers_and_the_asker_is_recorded(self):
        with answering_for(CUDA80) as driver:
            self.assertEqual(self.ask(), (True, (8, 0), "NVIDIA A100-SXM4-80GB", 108, "13.0", None, True))
        self.assertIn((os.path.abspath(__file__), self.ask.__code__.co_firstlineno + 2,
                       "torch.cuda.is_available()"), driver.askers)
        with answering_for(GFX942):
            self.assertEqual(self.ask(), (True, (9, 4), "AMD Instinct MI300X", 304, None, "6.4.43482", True))
        with answering_for(CUDA90) as driver:
            self.assertEqual(self.ask()[:4], (True, (9, 0), "NVIDIA H100 80GB HBM3", 132))
            self.assertEqual(driver.get_current_target(), CUDA90)
            self.assertEqual(driver.utils.get_device_properties(0)["multiprocessor_count"], 132)

    def test_outside_an_import_and_to_torch_itself_torch_answers_as_itself(self):
        import torch
        with answering_for(GFX942):
            self.assertFalse(torch.cuda.built_for_rocm())  # torch's own question: the truth
            self.assertTrue(torch.version.hip is not None)  # the module's question: the target's
        self.assertFalse(torch.cuda.is_available())
        self.assertEqual(torch.version.cuda, "13.0")
        with self.assertRaisesRegex(RuntimeError, "Found no NVIDIA driver"):
            torch.cuda.get_device_capability()

    def test_a_question_only_a_gpu_answers_raises(self):
        with answering_for(CUDA90) as driver:
            with self.assertRaisesRegex(NoDeviceError, "stream of a live GPU"):
                driver.get_current_stream()
            with self.assertRaisesRegex(NoDeviceError, "times kernels on a live GPU"):
                driver.get_benchmarker()
            with self.assertRaisesRegex(NoDeviceError, "needs a live GPU"):
                driver.launch_something


if __name__ == "__main__":
    unittest.main()
