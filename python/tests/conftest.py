"""Each test builds in a graph of its own and runs a session of its own."""

import pytest

import actorflow as af


@pytest.fixture
def graph():
    g = af.Graph()
    with g.as_default():
        yield g


@pytest.fixture
def sess(graph):
    with af.Session(graph=graph) as s:
        yield s
