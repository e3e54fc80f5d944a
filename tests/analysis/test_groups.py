"""A group's label names its client whenever the client calls otherwise than the contender's own: a
new connection per request or another HTTP library must never read as the contender's keep-alive client."""

from __future__ import annotations

import dataclasses

import pytest

import rpcarena
from rpcarena.analysis.groups import Group, own_client
from tests.helpers import FIXTURE


def cell(contender: str, client: str, language: str):
    return dataclasses.replace(rpcarena.load(FIXTURE).cells[0], contender=contender, client=client,
                               language=language)


@pytest.mark.parametrize("contender,client,language", [
    ("grpc-py", "py", "python"), ("rpyc-tuple", "py-tuple", "python"),
    ("rpyc-tuple-nodelay", "py-tuple-nodelay", "python"), ("grpc-go", "go", "go"), ("grpc-java", "", "java")])
def test_the_contenders_own_client_goes_unsaid(contender, client, language):
    driven = cell(contender, client, language)
    assert own_client(driven) and Group([driven]).label == contender


@pytest.mark.parametrize("contender,client,language", [
    ("rest-fastapi", "py-newconn", "python"), ("rest-fastapi", "py-requests", "python"),
    ("rest-go", "go-newconn", "go"), ("rest-axum", "rust-h1", "rust"), ("rpyc", "py-tuple", "python"),
    ("grpc-go", "py", "go")])
def test_another_way_of_calling_is_named(contender, client, language):
    driven = cell(contender, client, language)
    assert not own_client(driven) and Group([driven]).label == f"{contender}<-{client}"
