"""python -m triton_aot --cmake-dir | --prefix | --bin-dir | --version"""
import argparse
import sys

from . import __version__, bin_dir, cmake_dir, prefix


def main(argv=None, prog="python -m triton_aot"):
    parser = argparse.ArgumentParser(prog=prog, description="Where the triton-aot toolchain is.")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--cmake-dir", "--cmakedir", action="store_true",
                      help="the directory of TritonAOTConfig.cmake (for -DTritonAOT_DIR=)")
    what.add_argument("--prefix", action="store_true",
                      help="the install prefix (for CMAKE_PREFIX_PATH)")
    what.add_argument("--bin-dir", action="store_true", help="the directory of the tools")
    what.add_argument("--version", action="store_true", help="the toolchain's version")
    args = parser.parse_args(argv)
    if args.cmake_dir:
        print(cmake_dir())
    elif args.prefix:
        print(prefix())
    elif args.bin_dir:
        print(bin_dir())
    else:
        print(__version__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
