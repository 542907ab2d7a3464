#!/usr/bin/python3
"""Reference oracle: dump every event of a CTF trace as JSON lines, using babeltrace2.

Usage: /usr/bin/python3 bt2_jsonl.py [--no-fields] [--no-muxer]
                                     [--clock-offset-s=N] [--clock-offset-ns=N] TRACE_DIR

Needs the bt2 Python bindings (Debian: python3-bt2, babeltrace2 2.0.x), so run it with
the system interpreter (/usr/bin/python3), not a virtualenv/pyenv one.

TRACE_DIR may hold several traces in subdirectories (e.g. LTTng kernel + ust): the
sources are found by auto-discovery, exactly like the `babeltrace2 TRACE_DIR` CLI, and
the events of all traces are merged in timestamp order (bt2's muxer).

One line per event, compact JSON, the same contract as `sextant dump --format jsonl`:

  {"ts":<default_clock_snapshot.ns_from_origin>,"name":"<event class name>",
   "cpu":<packet context cpu_id or null>,"fields":{<payload, declared order>}}

Payload: integers exact (Python ints), enumerations as their integer value, strings as
strings (bytes not valid UTF-8 -> U+FFFD), arrays/sequences of text-encoded integers as
strings (bt2's ctf source already turns them into string fields, cut at the first NUL),
other arrays and sequences as lists, structures as objects, variants as the value of
the selected option, options as their content or null, booleans as true/false, bit
arrays as integers, reals as numbers (non-finite reals, which JSON cannot hold, as
null). `ts` is null for an event whose stream has no default clock.

Options:
  --no-fields          print "fields":{} (faster; for counts and timestamps).
  --no-muxer           do not use bt2's muxer: read every stream to its end on its own,
                       then print all events sorted by ts (stable: ties keep stream
                       order, then file order). bt2 2.0's muxer stops with an error when a
                       packet's timestamp_begin is lower than the previous packet's
                       timestamp_end in the same stream (synctraces, hello-lost); this
                       mode reads those traces to the end.
  --clock-offset-s=N   added to every clock class's offset_s (src.ctf.fs parameter
  --clock-offset-ns=N  clock-class-offset-s / -ns; like `babeltrace2 --clock-offset`).
                       funky_trace: --clock-offset-s=-1351530929945824323 cancels its
                       out-of-range offset_s and gives Trace Compass's timestamps.

Exit status: 0 when the whole trace was read; 3 when bt2 failed (every event read
before the error has been printed; the error is written to stderr); 2 on usage errors.
"""

import json
import math
import os
import sys

import bt2
from bt2 import trace_collection_message_iterator as _tcmi


def _text(s):
    # SWIG decodes C strings with "surrogateescape": undo it, then replace bad bytes.
    return s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def to_json(field):
    # Enumeration fields are integer fields: test integers first.
    if isinstance(field, bt2._IntegerFieldConst):
        return int(field)
    if isinstance(field, bt2._StringFieldConst):
        return _text(str(field))
    if isinstance(field, bt2._StructureFieldConst):
        return {_text(name): to_json(member) for name, member in field.items()}
    if isinstance(field, bt2._ArrayFieldConst):  # static and dynamic
        return [to_json(elem) for elem in field]
    if isinstance(field, bt2._VariantFieldConst):
        return to_json(field.selected_option)
    if isinstance(field, bt2._RealFieldConst):
        value = float(field)
        return value if math.isfinite(value) else None
    if isinstance(field, bt2._BoolFieldConst):
        return bool(field)
    if isinstance(field, bt2._BitArrayFieldConst):
        return int(field.value_as_integer)
    if isinstance(field, bt2._OptionFieldConst):
        return None if field.field is None else to_json(field.field)
    raise TypeError("unsupported field type: {}".format(type(field).__name__))


def event_record(msg, with_fields):
    """(ts, json line) for an event message."""
    event = msg.event
    try:
        ts = msg.default_clock_snapshot.ns_from_origin
    except Exception:  # stream class without a default clock
        ts = None

    cpu = None
    packet = event.packet
    if packet is not None:
        ctx = packet.context_field
        if ctx is not None and "cpu_id" in ctx:
            cpu = int(ctx["cpu_id"])

    fields = {}
    if with_fields and event.payload_field is not None:
        fields = to_json(event.payload_field)

    obj = {"ts": ts, "name": _text(event.name), "cpu": cpu, "fields": fields}
    line = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return ts, line


class _StreamByStreamSink(bt2._UserSinkComponent):
    """Sink with one input port per source output port; drains them one after the other."""

    def __init__(self, config, params, obj):
        self._n = int(params["ports"])
        self._out = obj  # (with_fields, list to append (ts, line) to)
        for i in range(self._n):
            self._add_input_port("in{}".format(i))

    def _user_graph_is_configured(self):
        self._iters = [
            self._create_message_iterator(self._input_ports["in{}".format(i)])
            for i in range(self._n)
        ]
        self._cur = 0

    def _user_consume(self):
        while self._cur < len(self._iters):
            try:
                msg = next(self._iters[self._cur])
            except StopIteration:
                self._cur += 1
                continue
            if type(msg) is bt2._EventMessageConst:
                with_fields, records = self._out
                records.append(event_record(msg, with_fields))
            return
        raise bt2.Stop


def run_no_muxer(path, params, with_fields, out):
    specs = _tcmi._auto_discover_source_component_specs(
        [bt2.AutoSourceComponentSpec(path, params=params)], None
    )
    graph = bt2.Graph()
    ports = []
    for i, spec in enumerate(specs):
        comp = graph.add_component(
            spec.component_class, "src{}".format(i), params=spec.params,
            logging_level=spec.logging_level,
        )
        ports.extend(sorted(comp.output_ports.values(), key=lambda p: p.name))
    records = []
    sink = graph.add_component(
        _StreamByStreamSink, "sink", params={"ports": len(ports)}, obj=(with_fields, records)
    )
    # Output ports appear when the source is initialised; connect them in name order
    # (stream file path order) for a reproducible tie order.
    for i, port in enumerate(ports):
        graph.connect_ports(port, sink.input_ports["in{}".format(i)])
    status = 0
    try:
        graph.run()
    except bt2._Error as exc:
        status = exc
    # Events with the same ts keep their read order (sorted() is stable).
    records.sort(key=lambda r: (r[0] is None, r[0] or 0))
    for _, line in records:
        out.write(line)
        out.write("\n")
    if status != 0:
        raise status


def run_muxed(path, params, with_fields, out):
    it = bt2.TraceCollectionMessageIterator(bt2.AutoSourceComponentSpec(path, params=params))
    for msg in it:
        if type(msg) is bt2._EventMessageConst:
            out.write(event_record(msg, with_fields)[1])
            out.write("\n")


USAGE = ("usage: bt2_jsonl.py [--no-fields] [--no-muxer] [--clock-offset-s=N] "
         "[--clock-offset-ns=N] TRACE_DIR\n")


def main(argv):
    with_fields = True
    no_muxer = False
    params = {}
    paths = []
    for arg in argv[1:]:
        if arg == "--no-fields":
            with_fields = False
        elif arg == "--no-muxer":
            no_muxer = True
        elif arg.startswith("--clock-offset-s="):
            params["clock-class-offset-s"] = int(arg.split("=", 1)[1])
        elif arg.startswith("--clock-offset-ns="):
            params["clock-class-offset-ns"] = int(arg.split("=", 1)[1])
        elif arg.startswith("-"):
            sys.stderr.write(USAGE)
            return 2
        else:
            paths.append(arg)
    if len(paths) != 1:
        sys.stderr.write(USAGE)
        return 2
    if not os.path.isdir(paths[0]):
        sys.stderr.write("bt2_jsonl.py: not a directory: {}\n".format(paths[0]))
        return 2

    out = sys.stdout
    try:
        if no_muxer:
            run_no_muxer(paths[0], params or None, with_fields, out)
        else:
            run_muxed(paths[0], params or None, with_fields, out)
    except KeyboardInterrupt:
        raise
    except BrokenPipeError:
        return 1
    except Exception as exc:  # bt2._Error and anything raised while converting
        out.flush()
        sys.stderr.write("bt2_jsonl.py: stopped early: {}: {}\n".format(type(exc).__name__, exc))
        return 3
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
