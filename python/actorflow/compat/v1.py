"""TensorFlow 1's API: ``import actorflow.compat.v1 as tf`` in place of
``import tensorflow.compat.v1 as tf`` runs a TensorFlow 1 program on the
actor engine. Every name here is actorflow's own (the same names are at
``actorflow``'s top level); a name TensorFlow has and this does not
raises AttributeError naming it (docs/from-tensorflow-1.md lists them)."""

import logging as _logging

from actorflow import *  # noqa: F401,F403
from actorflow import (dtypes, errors, initializers, layers, losses, nest,
                       nn, summary, train)

# TensorFlow 2's switches: graph mode is all there is here.


def disable_v2_behavior():
    """Nothing to do: actorflow always runs TensorFlow 1's graph mode."""


def disable_eager_execution():
    """Nothing to do: actorflow always runs TensorFlow 1's graph mode."""


def enable_v2_behavior():
    raise NotImplementedError("actorflow.compat.v1 runs graph mode only; "
                              "TensorFlow 2's behaviour is not available")


enable_eager_execution = enable_v2_behavior


def executing_eagerly():
    return False


class logging:
    """``tf.logging``: verbosity levels over Python's logging."""

    DEBUG, INFO, WARN, ERROR, FATAL = 10, 20, 30, 40, 50
    _log = _logging.getLogger("actorflow")

    @classmethod
    def set_verbosity(cls, level):
        cls._log.setLevel(level)

    @classmethod
    def get_verbosity(cls):
        return cls._log.getEffectiveLevel()

    @classmethod
    def info(cls, msg, *args):
        cls._log.info(msg, *args)

    @classmethod
    def warning(cls, msg, *args):
        cls._log.warning(msg, *args)

    warn = warning

    @classmethod
    def error(cls, msg, *args):
        cls._log.error(msg, *args)

    @classmethod
    def debug(cls, msg, *args):
        cls._log.debug(msg, *args)


def __getattr__(name):
    from actorflow._missing import missing
    raise missing(__name__, "tf", name, globals())
