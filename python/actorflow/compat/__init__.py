"""TensorFlow's compat namespace: ``import actorflow.compat.v1 as tf``."""
