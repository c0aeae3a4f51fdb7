"""Checkpoints, as ``tf.compat.v1.train.Saver`` writes and reads them:
TensorFlow's tensor bundle (``PREFIX.index`` and
``PREFIX.data-00000-of-00001``, through the SaveV2 and RestoreV2 kernels)
and the ``checkpoint`` state file beside them that ``latest_checkpoint``
reads. TensorFlow restores what is saved here, and this restores what
TensorFlow saved."""

import os
import time
import warnings

from . import ops as _ops
from .variables import global_variables
from .errors import NotFoundError
from .graph import Tensor, convert_to_tensor, get_default_graph

__all__ = [
    "Saver", "latest_checkpoint", "get_checkpoint_state",
    "checkpoint_exists", "update_checkpoint_state", "CheckpointState",
]


class CheckpointState:
    """What a ``checkpoint`` state file says: the newest checkpoint's
    prefix and every kept one's, oldest first (as TensorFlow's proto)."""

    def __init__(self, model_checkpoint_path="",
                 all_model_checkpoint_paths=(),
                 all_model_checkpoint_timestamps=(),
                 last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(
            all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def _text(self):
        """The state in protobuf's text format, as TensorFlow writes it."""
        lines = [f"model_checkpoint_path: {_quote(self.model_checkpoint_path)}"]
        lines += [f"all_model_checkpoint_paths: {_quote(p)}"
                  for p in self.all_model_checkpoint_paths]
        lines += [f"all_model_checkpoint_timestamps: {t!r}"
                  for t in self.all_model_checkpoint_timestamps]
        if self.last_preserved_timestamp:
            lines.append("last_preserved_timestamp: "
                         f"{self.last_preserved_timestamp!r}")
        return "\n".join(lines) + "\n"

    @classmethod
    def _parse(cls, text, path):
        state = cls()
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            key, colon, value = line.partition(":")
            value = value.strip()
            if not colon:
                raise ValueError(f"{path}:{number}: not a checkpoint state "
                                 f"line: {line!r}")
            if key == "model_checkpoint_path":
                state.model_checkpoint_path = _unquote(value)
            elif key == "all_model_checkpoint_paths":
                state.all_model_checkpoint_paths.append(_unquote(value))
            elif key == "all_model_checkpoint_timestamps":
                state.all_model_checkpoint_timestamps.append(float(value))
            elif key == "last_preserved_timestamp":
                state.last_preserved_timestamp = float(value)
            else:
                raise ValueError(f"{path}:{number}: unknown field {key!r} "
                                 "in a checkpoint state file")
        return state

    def __repr__(self):
        return f"CheckpointState({self._text()!r})"


def _quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unquote(s):
    if len(s) < 2 or s[0] != s[-1] or s[0] not in "\"'":
        raise ValueError(f"not a quoted string: {s}")
    return s[1:-1].encode("latin-1", "backslashreplace").decode(
        "unicode_escape")


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The ``CheckpointState`` of ``checkpoint_dir`` (None without a state
    file); relative paths in it are made relative to the directory."""
    path = os.path.join(os.fspath(checkpoint_dir),
                        latest_filename or "checkpoint")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        state = CheckpointState._parse(f.read(), path)
    if not state.model_checkpoint_path:
        raise ValueError(f"invalid checkpoint state file {path}: no "
                         "model_checkpoint_path")
    base = os.fspath(checkpoint_dir)

    def absolute(p):
        return p if os.path.isabs(p) else os.path.join(base, p)

    state.model_checkpoint_path = absolute(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [
        absolute(p) for p in state.all_model_checkpoint_paths]
    return state


def checkpoint_exists(checkpoint_prefix):
    """Whether a checkpoint (a bundle's index) lies at the prefix."""
    prefix = os.fspath(checkpoint_prefix)
    return os.path.exists(prefix + ".index") or os.path.isfile(prefix)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint in ``checkpoint_dir`` (by its
    state file), or None when there is none."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None


def update_checkpoint_state(save_dir, model_checkpoint_path,
                            all_model_checkpoint_paths=None,
                            latest_filename=None,
                            all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None,
                            save_relative_paths=False):
    """Writes ``save_dir``'s state file (atomically: a temporary file
    renamed over it)."""
    save_dir = os.fspath(save_dir)
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if save_relative_paths:
        def relative(p):
            return os.path.relpath(p, save_dir) if os.path.isabs(p) else p
        model_checkpoint_path = relative(model_checkpoint_path)
        paths = [relative(p) for p in paths]
    state = CheckpointState(model_checkpoint_path, paths,
                            all_model_checkpoint_timestamps or [],
                            last_preserved_timestamp or 0.0)
    path = os.path.join(save_dir, latest_filename or "checkpoint")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(state._text())
    os.replace(tmp, path)


def _refuse(name, value, supported):
    if value != supported:
        raise ValueError(f"Saver: {name}={value!r} is not supported by "
                         f"actorflow.compat.v1 (only {supported!r})")


class Saver:
    """Saves and restores variables as ``tf.compat.v1.train.Saver`` does.

    ``var_list``: a list of variables (saved under their node names) or a
    dict of checkpoint key -> variable; default: every global variable of
    the graph, optimizers' slots included. ``max_to_keep`` newest
    checkpoints are kept (None or 0: all), and one every
    ``keep_checkpoint_every_n_hours`` besides.
    """

    def __init__(self, var_list=None, reshape=False, sharded=False,
                 max_to_keep=5, keep_checkpoint_every_n_hours=10000.0,
                 name=None, restore_sequentially=False, saver_def=None,
                 builder=None, defer_build=False, allow_empty=False,
                 write_version=2, pad_step_number=False,
                 save_relative_paths=False, filename=None):
        _refuse("reshape", reshape, False)
        _refuse("sharded", sharded, False)
        _refuse("saver_def", saver_def, None)
        _refuse("builder", builder, None)
        _refuse("write_version", write_version, 2)
        self._var_list = var_list
        self._name = name or "save"
        self._allow_empty = allow_empty
        self._max_to_keep = max_to_keep
        self._keep_every = keep_checkpoint_every_n_hours * 3600.0
        self._next_keep = time.time() + self._keep_every
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._default_filename = filename or "model"
        self._last = []  # [(prefix, time saved)], oldest first
        self._built = False
        self._restore_afckpt = None
        self._graph = get_default_graph()
        if not defer_build:
            self.build()

    # -- the graph -------------------------------------------------------
    def build(self):
        """Adds the save and restore ops (done at construction unless
        ``defer_build``)."""
        if self._built:
            return
        pairs = _name_variables(self._var_list, self._graph)
        self._built = True
        if not pairs:
            if not self._allow_empty:
                raise ValueError("no variables to save")
            self._filename = self._save = self._restore = None
            return
        graph = pairs[0][1].graph
        with graph.as_default(), graph.name_scope(self._name):
            self._filename = _ops.placeholder_with_default(
                convert_to_tensor(self._default_filename, "string",
                                  name="Const"), shape=[], name="filename")
            names = convert_to_tensor([k for k, _ in pairs], "string",
                                      name="tensor_names")
            shapes = convert_to_tensor([""] * len(pairs), "string",
                                       name="shape_and_slices")
            self._save = _ops.save_v2(self._filename, names, shapes,
                                      [v for _, v in pairs], name="SaveV2")
            values = _ops.restore_v2(self._filename, names, shapes,
                                     [v.dtype.name for _, v in pairs],
                                     name="RestoreV2")
            assigns = [_ops.assign(v, t, name="Assign")
                       for (_, v), t in zip(pairs, values)]
            with graph.control_dependencies(assigns):
                self._restore = _ops.no_op(name="restore_all")

    @property
    def last_checkpoints(self):
        """The kept checkpoints' prefixes, oldest first."""
        return [p for p, _ in self._last]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        self._last = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths):
        """Takes up checkpoints an earlier run kept (for ``max_to_keep``)."""
        now = time.time()
        self._last = [(p, now) for p in checkpoint_paths
                      if checkpoint_exists(p)]

    # -- saving and restoring --------------------------------------------
    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True,
             write_state=True, strip_default_attrs=False,
             save_debug_info=False):
        """Writes the checkpoint ``save_path`` (``-<global_step>`` added
        when given, a number or a Tensor), creating its directory, and the
        state file beside it; returns the checkpoint's prefix."""
        self.build()
        save_path = os.fspath(save_path)
        if global_step is not None:
            if isinstance(global_step, Tensor):
                global_step = sess.run(global_step)
            step = int(global_step)
            save_path = (f"{save_path}-{step:08d}" if self._pad_step_number
                         else f"{save_path}-{step}")
        if self._save is None:
            return None
        directory = os.path.dirname(save_path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        sess.run(self._save, {self._filename: save_path})
        if write_state:
            self._record(save_path, latest_filename)
        return save_path

    def restore(self, sess, save_path):
        """Assigns every saved variable its value in the checkpoint at
        ``save_path`` (TensorFlow's bundle; a file of actorflow's old
        format is still read, with a warning)."""
        self.build()
        if save_path is None:
            raise ValueError("can't load save_path when it is None")
        save_path = os.fspath(save_path)
        if self._restore is None:
            return
        if not os.path.exists(save_path + ".index") \
                and os.path.isfile(save_path):
            return self._restore_old_format(sess, save_path)
        if not checkpoint_exists(save_path):
            raise NotFoundError(
                f"the checkpoint {save_path!r} does not exist "
                f"(no {save_path}.index)")
        sess.run(self._restore, {self._filename: save_path})

    def _restore_old_format(self, sess, save_path):
        warnings.warn(f"{save_path} is a checkpoint of actorflow's own "
                      "format (AFCKPT2), read for this release only: save "
                      "it again to have TensorFlow's", DeprecationWarning,
                      stacklevel=3)
        if self._restore_afckpt is None:
            pairs = _name_variables(self._var_list, self._graph)
            graph = pairs[0][1].graph
            with graph.as_default(), graph.name_scope(self._name + "_afckpt"):
                assigns = [_ops.assign(v, _ops.restore(
                    self._filename, convert_to_tensor(key, "string"),
                    dt=v.dtype.name)) for key, v in pairs]
                with graph.control_dependencies(assigns):
                    self._restore_afckpt = _ops.no_op(name="restore_all")
        sess.run(self._restore_afckpt, {self._filename: save_path})

    # -- the checkpoints kept ----------------------------------------------
    def _record(self, save_path, latest_filename):
        now = time.time()
        self._last = [(p, t) for p, t in self._last if p != save_path]
        self._last.append((save_path, now))
        if self._max_to_keep:
            while len(self._last) > self._max_to_keep:
                old, saved = self._last.pop(0)
                if saved > self._next_keep:
                    self._next_keep += self._keep_every
                    continue  # kept: one every n hours
                _delete_checkpoint(old)
        update_checkpoint_state(
            os.path.dirname(save_path) or ".", save_path,
            self.last_checkpoints, latest_filename,
            [t for _, t in self._last],
            save_relative_paths=self._save_relative_paths)


def _delete_checkpoint(prefix):
    directory = os.path.dirname(prefix) or "."
    base = os.path.basename(prefix)
    for name in os.listdir(directory):
        if name == base + ".index" or name == base + ".meta" \
                or name.startswith(base + ".data-"):
            os.remove(os.path.join(directory, name))


def _name_variables(var_list, graph):
    """[(checkpoint key, variable)] sorted by key, as TensorFlow orders a
    bundle's tensors."""
    if var_list is None:
        var_list = global_variables(graph=graph)
    if isinstance(var_list, dict):
        pairs = list(var_list.items())
    else:
        pairs = []
        for v in var_list:
            if isinstance(v, (list, tuple)):
                raise TypeError("Saver: var_list items must be variables, "
                                f"got {v!r}")
            pairs.append((v.op.name, v))
    seen = set()
    for key, v in pairs:
        if key in seen:
            raise ValueError(f"Saver: at least two variables have the same "
                             f"name: {key}")
        seen.add(key)
        if not isinstance(v, Tensor):
            raise TypeError(f"Saver: {key} is not a variable: {v!r}")
    return sorted(pairs, key=lambda p: p[0])
