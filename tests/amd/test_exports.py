"""The builtins that intdot.amd makes on first use are visible to type checkers: declared under
TYPE_CHECKING and listed in a literal __all__, and that list matches the builtin table."""

import ast
import pathlib

import intdot.amd as amd
from intdot.amd.builtins import BY_NAME, PREFIX

SOURCE = ast.parse(pathlib.Path(amd.__file__).read_text())


def _declared() -> set[str]:
    for node in SOURCE.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            found = {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
            if found:
                return found
    return set()


def test_every_builtin_is_declared_for_type_checkers():
    assert _declared() == set(BY_NAME) | {PREFIX + n for n in BY_NAME}


def test_all_is_a_literal_list_of_names_that_exist():
    literal = next(n.value for n in SOURCE.body if isinstance(n, ast.Assign) and n.targets[0].id == "__all__")
    names = ast.literal_eval(literal)
    assert names == amd.__all__ and set(BY_NAME) <= set(names)
    assert all(getattr(amd, n) is not None for n in names)
