#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the TiGrIS plans (.tgrs, schema 9) of the reference firmware, one per mode.

Usage:
    make_plans.py --out DIR              DIR/tigris_<mode>.tgrs and DIR/tigris_<mode>_plan.h; also
                                         DIR/tigris_<mode>_v1.tgrs and _v1_plan.h in schema 1 for
                                         the modes schema 1 can say (SCHEMA1_MODES)
    make_plans.py --summary              the planner's figures per mode (stage peaks, tile plans)
    make_plans.py --budget N --plan F    F: the tiled mode's plan for a budget of N bytes
    make_plans.py --reference            run the model in Python (independent of the C code) and
                                         print the output's CRC-32 (takes a few seconds)

Standard library only; the output depends on nothing but this file (no time stamps, no paths).

One model (MODEL) is planned for four budgets.  Each mode's description (MODES) names the budget
and the stage partition; the chain membership and the LINE_BUFFERED flag come with it.  What the
planner computes from them follows the planner rules tigris-ml 0.12.1 documents (our own code):
  * stage peak: bytes of every tensor the stage holds in the fast arena at once.  Our runtime
    frees nothing inside a stage (a bump allocator that is reset at the stage end), so the peak is
    the sum of the stage inputs and of every op output, each rounded up to ALIGN;
  * 1D tile plan of a stage over budget: rf over the stage's spatial ops walked forwards
    (rf += (eff_k - 1) * jump, jump *= stride), halo = rf - 1,
    tile_h = floor(budget * H / peak) - halo, lowered while
    max(ceil(peak * (tile_h + halo) / H), band bytes) > budget, where band bytes = input band of
    (tile_h + halo) rows + every op output band, each aligned; num_tiles = ceil(H / tile_h);
    tiled_peak_bytes = that max; overhead_bytes = halo * input row bytes * (num_tiles - 1);
  * chain tile height: the largest output height T of the last member whose bytes (the chain
    input band + every op output band, heights back-propagated op by op with
    in_h = out_h * stride + max(eff_k - stride, 0), no clamping) fit the budget.
"""
import argparse
import os
import struct
import sys
import zlib

ALIGN = 16            # TIGRIS_TENSOR_ALIGN of our runtime (tigris_rt.h)
SCHEMA = 9
DT_INT8 = 3           # ONNX TensorProto.INT8
OP_CONV, OP_MAXPOOL = 1, 5          # op_types of schema/tigris-plan-v9.json
ACT_NONE, ACT_RELU = 0, 1
T_INPUT, T_OUTPUT = 0x02, 0x04      # tensor flags
HDR_XIP = 0x1                       # weights read in place from the plan
SEC_TENSORS, SEC_OPS, SEC_STAGES, SEC_TILE_PLANS = 1, 2, 3, 4
SEC_INDEX_POOL, SEC_SHAPE_POOL, SEC_STRINGS, SEC_WEIGHTS = 5, 6, 7, 8
STAGE_FLAG_LINE_BUFFERED = 0x1
NONE16 = 0xFFFF

# ---------------------------------------------------------------------------------- the model
# input 1x64x64x1 -> MaxPool 2x2/2 -> Conv 3x3/1 pad 1 (4, ReLU) -> Conv 3x3 (4, ReLU)
#                 -> Conv 3x3 (16, ReLU) = output 1x32x32x16.  All int8, NHWC.
MODEL = {
    "input": ("input", (1, 64, 64, 1)),
    "ops": [
        {"name": "pool", "type": OP_MAXPOOL, "k": 2, "s": 2, "p": 0, "out": "pool_out"},
        {"name": "conv1", "type": OP_CONV, "k": 3, "s": 1, "p": 1, "cout": 4, "out": "conv1_out"},
        {"name": "conv2", "type": OP_CONV, "k": 3, "s": 1, "p": 1, "cout": 4, "out": "conv2_out"},
        {"name": "conv3", "type": OP_CONV, "k": 3, "s": 1, "p": 1, "cout": 16, "out": "output"},
    ],
}
REQUANT_SHIFT = 5     # documented in tigris_kernels.c: out = clamp(floor((acc + 16) / 32), act_min, act_max)
WEIGHT_RANGE = 31     # conv weights uniform in [-31, 31]
BIAS_RANGE = 256      # biases uniform in [-256, 256]

# stages: lists of op indices; "chain": (head, length) with "line_buffered"; other stages over
# budget get a 1D tile plan.
MODES = {
    "normal": {"budget": 20480, "stages": [[0, 1, 2], [3]]},
    "tiled": {"budget": 8192, "stages": [[0], [1], [2], [3]]},
    "chain": {"budget": 6144, "stages": [[0, 1], [2], [3]], "chain": (0, 3), "line_buffered": False},
    "chain_lb": {"budget": 6144, "stages": [[0, 1], [2], [3]], "chain": (0, 3), "line_buffered": True},
}
SLOW_ARENA_BYTES = 32768   # every mode's slow pool fits (largest: tiled, 29696)
# Schema 1 (tigris-ml 0.3.1, the public tigris-runtime): ops of 32 bytes with one-byte pads and
# dilations, tile axis 0 for height, no stage flags, so no line-buffered chain.
SCHEMA1_MODES = ("normal", "tiled", "chain")


def align(n, a=ALIGN):
    return (n + a - 1) // a * a


class Lcg:
    """Numerical Recipes LCG; values from bits 8..31 (as the C programs of this repository)."""

    def __init__(self, seed):
        self.s = seed & 0xFFFFFFFF

    def next(self, lo, hi):
        self.s = (self.s * 1664525 + 1013904223) & 0xFFFFFFFF
        return lo + (self.s >> 8) % (hi - lo + 1)


def build_graph():
    """Tensors (name, shape) and ops with their shapes and weights."""
    tensors = [MODEL["input"]]
    ops = []
    rng = Lcg(0x7167C0DE)
    cur = 0
    for od in MODEL["ops"]:
        n, h, w, c = tensors[cur][1]
        k, s, p = od["k"], od["s"], od["p"]
        ho = (h + 2 * p - k) // s + 1
        wo = (w + 2 * p - k) // s + 1
        co = od.get("cout", c)
        tensors.append((od["out"], (n, ho, wo, co)))
        op = dict(od, inp=cur, outp=len(tensors) - 1, cin=c)
        if od["type"] == OP_CONV:
            op["weights"] = [rng.next(-WEIGHT_RANGE, WEIGHT_RANGE) for _ in range(co * k * k * c)]
            op["bias"] = [rng.next(-BIAS_RANGE, BIAS_RANGE) for _ in range(co)]
        ops.append(op)
        cur = len(tensors) - 1
    return tensors, ops


def tensor_bytes(shape):
    n = 1
    for d in shape:
        n *= d
    return n                          # int8


def row_bytes(shape):
    return shape[2] * shape[3]


def stage_io(stage_ops, ops):
    produced = {ops[i]["outp"] for i in stage_ops}
    inputs = []
    for i in stage_ops:
        if ops[i]["inp"] not in produced and ops[i]["inp"] not in inputs:
            inputs.append(ops[i]["inp"])
    last = ops[stage_ops[-1]]["outp"]
    return inputs, [last]


def stage_peak(stage_ops, ops, tensors):
    inputs, _ = stage_io(stage_ops, ops)
    return sum(align(tensor_bytes(tensors[t][1])) for t in inputs) + \
        sum(align(tensor_bytes(tensors[ops[i]["outp"]][1])) for i in stage_ops)


def receptive_field(stage_ops, ops):
    rf, jump = 1, 1
    for i in stage_ops:
        rf += (ops[i]["k"] - 1) * jump
        jump *= ops[i]["s"]
    return rf


def tile_plan_1d(stage_ops, ops, tensors, budget):
    inputs, _ = stage_io(stage_ops, ops)
    assert len(inputs) == 1
    in_shape = tensors[inputs[0]][1]
    H = in_shape[1]
    peak = stage_peak(stage_ops, ops, tensors)
    rf = receptive_field(stage_ops, ops)
    halo = rf - 1
    th = budget * H // peak - halo

    def band(t):
        # input band of t + halo rows and every op output band, heights forward from the input
        rows = t + halo
        total = align((t + halo) * row_bytes(in_shape))
        for i in stage_ops:
            o = ops[i]
            rows = (rows - o["k"]) // o["s"] + 1
            total += align(rows * row_bytes(tensors[o["outp"]][1]))
        return total

    def est(t):
        return max(-(-peak * (t + halo) // H), band(t))

    while th > 1 and est(th) > budget:
        th -= 1
    assert th >= 1 and est(th) <= budget, "stage does not tile in 1D"
    ntiles = -(-H // th)
    return {
        "tileable": 1, "axis": 1, "tile_height": th, "num_tiles": ntiles, "halo": halo,
        "receptive_field": rf, "original_height": H, "tiled_peak_bytes": est(th),
        "overhead_bytes": halo * row_bytes(in_shape) * (ntiles - 1), "tile_width": 0, "flags": 0,
    }


def chain_ops(stages, head, length):
    return [i for s in range(head, head + length) for i in stages[s]]


def chain_bytes(op_list, ops, tensors, T):
    """Fast bytes of one chain tile with T output rows of the last op (heights not clamped)."""
    heights = [T]
    for i in reversed(op_list):
        o = ops[i]
        heights.append(heights[-1] * o["s"] + max(o["k"] - o["s"], 0))
    heights.reverse()                 # heights[0] = chain input band, heights[k+1] = op k's output
    total = align(heights[0] * row_bytes(tensors[ops[op_list[0]]["inp"]][1]))
    for k, i in enumerate(op_list):
        total += align(heights[k + 1] * row_bytes(tensors[ops[i]["outp"]][1]))
    return total, heights


def solve_chain(op_list, ops, tensors, budget):
    H = tensors[ops[op_list[-1]]["outp"]][1][1]
    lo, hi = 0, H
    while lo < hi:                    # largest T in [1, H] that fits
        mid = (lo + hi + 1) // 2
        if chain_bytes(op_list, ops, tensors, mid)[0] <= budget:
            lo = mid
        else:
            hi = mid - 1
    assert lo >= 1, "chain does not fit the budget"
    return lo


def plan_mode(mode, budget=None):
    """The plan of MODES[mode]; `budget` replaces the mode's (the plan is then named for it)."""
    d = MODES[mode]
    tensors, ops = build_graph()
    name = "tigris_" + mode if budget is None else "tigris_%s_%d" % (mode, budget)
    budget = d["budget"] if budget is None else budget
    stages = d["stages"]
    assert sorted(i for s in stages for i in s) == list(range(len(ops)))
    chain = d.get("chain")
    in_chain = set(range(chain[0], chain[0] + chain[1])) if chain else set()
    st_out = []
    tile_plans = []
    for si, s in enumerate(stages):
        inputs, outputs = stage_io(s, ops)
        peak = stage_peak(s, ops, tensors)
        rec = {"ops": s, "inputs": inputs, "outputs": outputs, "peak": peak, "tile_plan": NONE16,
               "chain_id": NONE16, "chain_len": 0, "chain_tile_h": 0, "flags": 0}
        if si in in_chain:
            assert peak > budget, "a chain member that fits the budget"
            rec["chain_id"] = chain[0]
            rec["chain_len"] = chain[1]
        elif peak > budget:
            rec["tile_plan"] = len(tile_plans)
            tile_plans.append(tile_plan_1d(s, ops, tensors, budget))
        st_out.append(rec)
    if chain:
        op_list = chain_ops(stages, chain[0], chain[1])
        head = st_out[chain[0]]
        head["chain_tile_h"] = solve_chain(op_list, ops, tensors, budget)
        if d.get("line_buffered"):
            head["flags"] = STAGE_FLAG_LINE_BUFFERED
    whole_peak = sum(align(tensor_bytes(t[1])) for t in tensors)
    return {"name": name, "budget": budget, "peak": whole_peak, "tensors": tensors,
            "ops": ops, "stages": st_out, "tile_plans": tile_plans}


# ------------------------------------------------------------------------------- serialising
def emit_tgrs(p, schema=SCHEMA):
    strings = bytearray()

    def s(text):
        off = len(strings)
        strings.extend(text.encode() + b"\0")
        return off

    name_off = s(p["name"])
    index_pool = []
    shape_pool = []

    def idx(values):
        off = len(index_pool)
        index_pool.extend(values)
        return off

    tensors, ops, stages = p["tensors"], p["ops"], p["stages"]
    model_io_off = idx([0, len(tensors) - 1])

    # weights: entry table, then the blob (16-aligned), each weight 16-aligned inside it
    wentries, blob = [], bytearray()
    for o in ops:
        if o["type"] != OP_CONV:
            o["widx"] = o["bidx"] = NONE16
            continue
        for kind, data in (("weight", struct.pack("<%db" % len(o["weights"]), *o["weights"])),
                           ("bias", struct.pack("<%di" % len(o["bias"]), *o["bias"]))):
            blob.extend(b"\0" * (align(len(blob)) - len(blob)))
            o["widx" if kind == "weight" else "bidx"] = len(wentries)
            wentries.append((s("%s.%s" % (o["name"], kind)), len(blob), len(data)))
            blob.extend(data)

    trec = bytearray()
    for ti, (tname, shape) in enumerate(tensors):
        shape_off = len(shape_pool)
        shape_pool.extend(shape)
        flags = (T_INPUT if ti == 0 else 0) | (T_OUTPUT if ti == len(tensors) - 1 else 0)
        trec += struct.pack("<IIHBBBHB", s(tname), tensor_bytes(shape), shape_off, len(shape),
                            DT_INT8, flags, NONE16, 0)
    stage_of = {i: si for si, st in enumerate(stages) for i in st["ops"]}
    orec = bytearray()
    for oi, o in enumerate(ops):
        in_off = idx([o["inp"]])
        out_off = idx([o["outp"]])
        relu = o["type"] == OP_CONV
        orec += struct.pack("<IBBBBHH", s(o["name"]), o["type"], 1, 1, stage_of[oi] & 0xFF,
                            in_off, out_off)
        small = "B" if schema == 1 else "H"   # pads and dilations
        orec += struct.pack("<BBBB6%sH" % small, o["k"], o["k"], o["s"], o["s"], o["p"], o["p"],
                            o["p"], o["p"], 1, 1, 1)
        orec += struct.pack("<HHBbbB", o["widx"], o["bidx"], ACT_RELU if relu else ACT_NONE,
                            0 if relu else -128, 127, 0)
    srec = bytearray()
    for st in stages:
        ops_off = idx(st["ops"])
        in_off = idx(st["inputs"])
        out_off = idx(st["outputs"])
        srec += struct.pack("<I12H", st["peak"], ops_off, len(st["ops"]), in_off,
                            len(st["inputs"]), out_off, len(st["outputs"]), st["tile_plan"], 0,
                            st["chain_id"], st["chain_len"], st["chain_tile_h"], st["flags"])
        assert schema > 1 or st["flags"] == 0, "schema 1 has no stage flags"
    tprec = bytearray()
    for tp in p["tile_plans"]:
        tprec += struct.pack("<BB5H2I2H", tp["tileable"], tp["axis"] if schema >= 5 else 0, tp["tile_height"],
                             tp["num_tiles"], tp["halo"], tp["receptive_field"],
                             tp["original_height"], tp["tiled_peak_bytes"], tp["overhead_bytes"],
                             tp["tile_width"], tp["flags"])
    wsec = bytearray()
    for e in wentries:
        wsec += struct.pack("<III", *e)

    assert len(orec) == (32 if schema == 1 else 38) * len(ops) and len(srec) == 28 * len(stages)
    sections = [(SEC_TENSORS, trec), (SEC_OPS, orec), (SEC_STAGES, srec)]
    if tprec:
        sections.append((SEC_TILE_PLANS, tprec))
    sections += [(SEC_INDEX_POOL, struct.pack("<%dH" % len(index_pool), *index_pool)),
                 (SEC_SHAPE_POOL, struct.pack("<%di" % len(shape_pool), *shape_pool)),
                 (SEC_STRINGS, bytes(strings)), (SEC_WEIGHTS, None)]
    out = bytearray(48)
    dir_off = len(out)
    out += b"\0" * (8 * (len(sections) + 1))
    directory = []
    for typ, data in sections:
        out += b"\0" * (align(len(out)) - len(out))
        directory.append((typ, len(out)))
        if typ == SEC_WEIGHTS:
            out += wsec
            out += b"\0" * (align(len(out)) - len(out))     # the blob starts 16-aligned
            out += blob
        else:
            out += data
    out += b"\0" * (align(len(out)) - len(out))
    for k, (typ, off) in enumerate(directory):
        struct.pack_into("<II", out, dir_off + 8 * k, typ, off)
    struct.pack_into("<4sIIIHHHHIIIHBBHHI", out, 0, b"TGRS", schema, len(out), dir_off,
                     len(tensors), len(ops), len(stages), len(p["tile_plans"]), p["budget"],
                     p["peak"], name_off, model_io_off, 1, 1, len(wentries), 0, HDR_XIP)
    return bytes(out)


def emit_header(p, data, ref):
    lines = [
        "/* Generated by firmware/tigris/make_plans.py from its MODES[\"%s\"]: do not edit. */"
        % p["name"][len("tigris_"):],
        "#define TIGRIS_PLAN_NAME \"%s\"" % p["name"],
        "#define TIGRIS_PLAN_BYTES %du" % len(data),
        "#define TIGRIS_PLAN_FAST_ARENA_BYTES %du   /* = the plan's budget */" % p["budget"],
        "#define TIGRIS_PLAN_SLOW_ARENA_BYTES %du" % SLOW_ARENA_BYTES,
        "#define TIGRIS_PLAN_NUM_TENSORS %du" % len(p["tensors"]),
        "#define TIGRIS_PLAN_CRC32 0x%08Xu   /* CRC-32 of the plan bytes */" % zlib.crc32(data),
        "#define TIGRIS_REFERENCE_OUTPUT_CRC32 0x%08Xu   /* make_plans.py's own run of the model */"
        % zlib.crc32(ref),
        "/* TIGRIS_PLAN_ATTRS: section and alignment, defined by the includer */",
        "TIGRIS_PLAN_ATTRS const uint8_t g_tigris_plan[TIGRIS_PLAN_BYTES] = {",
    ]
    for k in range(0, len(data), 16):
        lines.append("    " + " ".join("0x%02x," % b for b in data[k:k + 16]))
    lines.append("};")
    return "\n".join(lines) + "\n"


def write_if_changed(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    try:
        with open(path, "rb") as f:
            old = f.read()
        if old == (data if isinstance(data, bytes) else data.encode()):
            return
    except OSError:
        pass
    with open(path, mode) as f:
        f.write(data)


# --------------------------------------------------------------------------- summary, reference
def summary():
    for mode in MODES:
        p = plan_mode(mode)
        data = emit_tgrs(p)
        print("%s: budget=%d peak=%d bytes=%d crc32=0x%08X" % (p["name"], p["budget"], p["peak"],
                                                             len(data), zlib.crc32(data)))
        for si, st in enumerate(p["stages"]):
            print("  stage %d ops=%s in=%s out=%s peak=%d tile_plan=%s chain_id=%s chain_len=%d "
                  "chain_tile_h=%d flags=%d" % (si, st["ops"], st["inputs"], st["outputs"],
                                                st["peak"], st["tile_plan"], st["chain_id"],
                                                st["chain_len"], st["chain_tile_h"], st["flags"]))
        for k, tp in enumerate(p["tile_plans"]):
            print("  tile_plan %d %s" % (k, tp))
        for st in p["stages"]:
            if st["chain_tile_h"]:
                op_list = chain_ops([x["ops"] for x in p["stages"]], st["chain_id"],
                                    st["chain_len"])
                T = st["chain_tile_h"]
                for t in (T, T + 1):
                    b, h = chain_bytes(op_list, p["ops"], p["tensors"], t)
                    print("  chain T=%d heights=%s bytes=%d" % (t, h, b))


def make_input():
    """The input image of main.c's make_input() (the same LCG and formula)."""
    rng = Lcg(0x00C0FFEE)
    n, h, w, c = MODEL["input"][1]
    img = []
    for y in range(h):
        for x in range(w):
            v = ((x * 5 + y * 3) & 0xFF) - 128 + rng.next(-24, 24)
            img.append(max(-128, min(127, v)))
    return img


def reference():
    """The model's output (bytes), computed here independently of the C kernels."""
    tensors, ops = build_graph()
    data = make_input()
    for o in ops:
        _, h, w, c = tensors[o["inp"]][1]
        _, ho, wo, co = tensors[o["outp"]][1]
        k, s, p = o["k"], o["s"], o["p"]
        out = []
        for y in range(ho):
            for x in range(wo):
                for oc in range(co):
                    if o["type"] == OP_MAXPOOL:
                        m = -128
                        for ky in range(k):
                            for kx in range(k):
                                iy, ix = y * s - p + ky, x * s - p + kx
                                if 0 <= iy < h and 0 <= ix < w:
                                    m = max(m, data[(iy * w + ix) * c + oc])
                        out.append(m)
                        continue
                    acc = o["bias"][oc]
                    for ky in range(k):
                        iy = y * s - p + ky
                        if not 0 <= iy < h:
                            continue
                        for kx in range(k):
                            ix = x * s - p + kx
                            if not 0 <= ix < w:
                                continue
                            base = (iy * w + ix) * c
                            wb = ((oc * k + ky) * k + kx) * c
                            for ci in range(c):
                                acc += data[base + ci] * o["weights"][wb + ci]
                    half = 1 << (REQUANT_SHIFT - 1)
                    q = (acc + half) >> REQUANT_SHIFT      # floor: round half up
                    out.append(max(0, min(127, q)))
        data = out
    return bytes(v & 0xFF for v in data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="directory for tigris_<mode>.tgrs and tigris_<mode>_plan.h")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--reference", action="store_true")
    ap.add_argument("--budget", type=int, help="with --plan: plan the tiled mode's stages for this many bytes")
    ap.add_argument("--plan", help="with --budget: write that plan (.tgrs) to this file")
    a = ap.parse_args()
    if (a.budget is None) != (a.plan is None):
        ap.error("--budget and --plan go together")
    if a.plan:
        try:
            p = plan_mode("tiled", a.budget)
        except AssertionError as e:
            print("make_plans.py: no plan for a budget of %d bytes: %s" % (a.budget, e), file=sys.stderr)
            return 1
        write_if_changed(a.plan, emit_tgrs(p))
        return 0
    if a.summary:
        summary()
    ref = reference() if (a.reference or a.out) else None
    if a.reference:
        print("reference: output bytes=%d crc32=0x%08X nonzero=%d sum=%d" % (
            len(ref), zlib.crc32(ref), sum(1 for v in ref if v), sum(ref)))
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        for mode in MODES:
            p = plan_mode(mode)
            data = emit_tgrs(p)
            write_if_changed(os.path.join(a.out, p["name"] + ".tgrs"), data)
            write_if_changed(os.path.join(a.out, p["name"] + "_plan.h"), emit_header(p, data, ref))
            if mode in SCHEMA1_MODES:
                p["name"] += "_v1"
                data = emit_tgrs(p, schema=1)
                write_if_changed(os.path.join(a.out, p["name"] + ".tgrs"), data)
                write_if_changed(os.path.join(a.out, p["name"] + "_plan.h"), emit_header(p, data, ref))
    if not (a.out or a.summary or a.reference):
        ap.print_usage(sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
