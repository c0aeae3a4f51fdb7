#!/usr/bin/env python3
"""Writes a Keras application's training step as a TensorFlow GraphDef (P16).

The model (tf.compat.v1.keras.applications, weights=None) in v1 graph mode
with Keras' learning phase fixed to training (batch statistics, moving
averages updated), its logits' mean sparse softmax cross entropy against
fed int32 labels, and plain SGD (tf.compat.v1.train.GradientDescent
Optimizer: a ResourceApplyGradientDescent per weight, after every
gradient). The variables stay variables: `init` initialises them, `train`
is one step, `loss` its loss. Time the same file with both engines:

  python keras_train_graph.py --model ResNet50 --size 112 --out train.pb
  actorflow benchmark --graph train.pb --init init --target train \\
      --fetch loss --feed input_1=8x112x112x3 --feed labels=8:int32
  python frozen_graph_tf1.py --graph train.pb --init init --target train \\
      --fetch loss --feed input_1=8x112x112x3 --feed labels=8:int32
"""
import argparse
import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="ResNet50")
    p.add_argument("--size", type=int, default=112)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_v2_behavior()
    g = tf1.Graph()
    with g.as_default():
        tf1.keras.backend.set_learning_phase(1)
        model = getattr(tf1.keras.applications, a.model)(
            weights=None, input_shape=(a.size, a.size, 3),
            classifier_activation=None)
        labels = tf1.placeholder(tf.int32, [None], name="labels")
        loss = tf1.reduce_mean(
            tf1.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=model.outputs[0]), name="loss")
        tf1.train.GradientDescentOptimizer(a.lr).minimize(loss, name="train")
        tf1.variables_initializer(tf1.global_variables(), name="init")
    with open(a.out, "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    print("wrote %s: %d nodes; feed %s and labels, fetch loss, target train, "
          "init init" % (a.out, len(g.as_graph_def().node),
                         model.inputs[0].op.name))


if __name__ == "__main__":
    main()
