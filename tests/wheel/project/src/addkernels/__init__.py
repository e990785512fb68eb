"""The add kernel, prebuilt: a ctypes view of the library this package ships."""
import ctypes
import os

library = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libaddkernels.so"))
library.addkernels_inventory.restype = ctypes.c_char_p


def inventory():
    return library.addkernels_inventory().decode()
