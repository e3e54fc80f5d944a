"""The command's entry: what it sets before its libraries load."""

from __future__ import annotations

from rpcarena.__main__ import fork_without_grpc_handlers


def test_the_command_forks_its_children_without_grpcs_fork_handlers_unless_told_otherwise():
    environ: dict[str, str] = {}
    fork_without_grpc_handlers(environ)
    assert environ == {"GRPC_ENABLE_FORK_SUPPORT": "false"}
    told = {"GRPC_ENABLE_FORK_SUPPORT": "true"}
    fork_without_grpc_handlers(told)
    assert told == {"GRPC_ENABLE_FORK_SUPPORT": "true"}
