"""docs/tuning.schema.json describes the tables the project holds and the one docs/tuning.md
shows, and refuses what the reader refuses (a name that could not be C, a control character)."""
import copy
import json
import os
import re
import unittest

import jsonschema

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return json.load(f)


def documented_table():
    """The JSON block under docs/tuning.md's "The tuning table" heading."""
    with open(os.path.join(ROOT, "docs", "tuning.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## The tuning table"):]
    return json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))


class TuningSchema(unittest.TestCase):
    def setUp(self):
        self.validator = jsonschema.Draft202012Validator(load("docs/tuning.schema.json"))

    def test_the_repositorys_tables_and_the_documented_one_are_valid(self):
        tables = ["tests/runtime/rt_tuned.tuning.json", "tests/gpu/gpu_tuned.tuning.json",
                  "tests/plugin/projects/tuned/adds.tuning.json"]
        for path in tables:
            with self.subTest(path=path):
                self.validator.validate(load(path))
        self.validator.validate(documented_table())

    def test_what_the_reader_refuses_the_schema_refuses(self):
        table = documented_table()
        bad = {
            "a kernel name with a preprocessor line": ("kernel", "matmul\n#error X"),
            "a key name that is not an identifier": ("key", ["M", "N-1", "K"]),
            "another schema": ("schema", "triton-aot-tuning-2"),
        }
        for what, (member, value) in bad.items():
            with self.subTest(what=what):
                changed = copy.deepcopy(table)
                if member == "schema":
                    changed[member] = value
                else:
                    changed["kernels"][0][member] = value
                self.assertFalse(self.validator.is_valid(changed))
        device = copy.deepcopy(table)
        device["kernels"][0]["targets"][0]["device"] = "H100 */ int x; /*\n"
        self.assertFalse(self.validator.is_valid(device))


if __name__ == "__main__":
    unittest.main()
