"""files.inputs: only a regular file is opened for reading; nothing else can make a read wait."""

from __future__ import annotations

import os
import threading

import pytest

from rpcarena.errors import UsageError
from rpcarena.files import inputs


def _within(seconds: float, call):
    """`call`'s outcome (its value or the exception it raised), failing if it takes longer: a read
    that blocks would hang the test instead."""
    outcome: list = []

    def run() -> None:
        try:
            outcome.append(call())
        except Exception as error:  # the outcome under test
            outcome.append(error)
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"{call} still waits after {seconds} s"
    return outcome[0]


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "data.csv"
    os.mkfifo(fifo)
    refused = _within(5, lambda: inputs.read_bytes(fifo, "--data-file"))
    assert isinstance(refused, UsageError) and "FIFO" in str(refused) and "--data-file" in str(refused)


@pytest.mark.parametrize("path,kind", [("/dev/zero", "device"), (".", "folder")])
def test_a_device_or_a_folder_is_refused(path, kind):
    refused = _within(5, lambda: inputs.read_bytes(path, "--proto"))
    assert isinstance(refused, UsageError) and kind in str(refused)


def test_a_link_to_a_regular_file_is_read_and_an_empty_path_refused(tmp_path):
    (tmp_path / "real").write_bytes(b"x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert inputs.read_bytes(tmp_path / "link", "--data-file") == b"x"
    with pytest.raises(UsageError, match="''"):
        inputs.path_of(" ", "--data-file")
    with pytest.raises(UsageError, match="larger than"):
        inputs.read_bytes(tmp_path / "real", "--data-file", limit=0)
