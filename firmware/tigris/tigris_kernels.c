/*
 * tigris_kernels.c: the reference int8 kernels of the TiGrIS reference firmware (our own code).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * NHWC int8 tensors, one batch.  Conv: weights [cout][kh][kw][cin] int8 and biases int32 from the
 * plan's weights section; accumulator int32; requantisation out = clamp(floor((acc + 16) / 32),
 * act_min, act_max) (a fixed shift of 5: the plans carry no quant parameters), so a fused ReLU is
 * act_min = 0.  MaxPool: the largest value of the window, padding ignored.
 *
 * Every call computes output rows [tile.out_start, tile.out_end) of its output tensor.  The input
 * buffer holds tensor rows [tile.in_row0, tile.in_row0 + tile.in_rows), the output buffer starts
 * at tensor row tile.out_row0 (mem->tile, set by the executor); rows outside the tensor are
 * padding.  A call whose input rows are not all in the buffer fails (-1) instead of reading
 * outside it.
 */
#include "tigris_rt.h"

#define NOINLINE __attribute__((noinline, noclone))

#define REQUANT_SHIFT 5

static int8_t requant(int32_t acc, int8_t lo, int8_t hi)
{
    int32_t v = acc + (1 << (REQUANT_SHIFT - 1));
    /* floor division by 2^5 without shifting a negative number */
    int32_t q = v >= 0 ? v / (1 << REQUANT_SHIFT) : -((-v + (1 << REQUANT_SHIFT) - 1) / (1 << REQUANT_SHIFT));
    return (int8_t)(q < lo ? lo : q > hi ? hi : q);
}

/* the input rows [r0, r1) that output rows [start, end) read, clamped to the tensor */
static int input_rows_present(const tigris_op_t *op, const tigris_tile_ctx_t *t, int32_t h)
{
    int32_t r0 = t->out_start * op->stride_h - op->pad_top;
    int32_t r1 = (t->out_end - 1) * op->stride_h - op->pad_top + op->kernel_h;
    if (r0 < 0)
        r0 = 0;
    if (r1 > h)
        r1 = h;
    return r0 >= t->in_row0 && r1 <= t->in_row0 + t->in_rows;
}

NOINLINE int tigris_conv2d_s8(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem)
{
    uint16_t it = tigris_plan_index(plan, op->inputs_off), ot = tigris_plan_index(plan, op->outputs_off);
    const int32_t h = tigris_plan_dim(plan, it, 1), w = tigris_plan_dim(plan, it, 2);
    const int32_t cin = tigris_plan_dim(plan, it, 3);
    const int32_t wo = tigris_plan_dim(plan, ot, 2), cout = tigris_plan_dim(plan, ot, 3);
    const int32_t kh = op->kernel_h, kw = op->kernel_w, sh = op->stride_h, sw = op->stride_w;
    const int32_t pt = op->pad_top, pl = op->pad_left;
    const tigris_tile_ctx_t *t = &mem->tile;
    const int8_t *in = mem->tensor_ptrs[it];
    int8_t *out = mem->tensor_ptrs[ot];
    const int8_t *wt = tigris_plan_weight(plan, op->weight_idx, NULL);
    const int32_t *bias = tigris_plan_weight(plan, op->bias_idx, NULL);
    if (!in || !out || !wt || !bias || !input_rows_present(op, t, h))
        return -1;
    for (int32_t y = t->out_start; y < t->out_end; y++) {
        int8_t *orow = out + (y - t->out_row0) * wo * cout;
        for (int32_t x = 0; x < wo; x++) {
            for (int32_t co = 0; co < cout; co++) {
                int32_t acc = bias[co];
                const int8_t *wk = wt + co * kh * kw * cin;
                for (int32_t ky = 0; ky < kh; ky++) {
                    int32_t iy = y * sh - pt + ky;
                    if (iy < 0 || iy >= h)
                        continue;
                    const int8_t *irow = in + (iy - t->in_row0) * w * cin;
                    for (int32_t kx = 0; kx < kw; kx++) {
                        int32_t ix = x * sw - pl + kx;
                        if (ix < 0 || ix >= w)
                            continue;
                        const int8_t *px = irow + ix * cin;
                        const int8_t *wp = wk + (ky * kw + kx) * cin;
                        for (int32_t ci = 0; ci < cin; ci++)
                            acc += (int32_t)px[ci] * (int32_t)wp[ci];
                    }
                }
                orow[x * cout + co] = requant(acc, op->act_min, op->act_max);
            }
        }
    }
    return 0;
}

NOINLINE int tigris_maxpool2d_s8(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem)
{
    uint16_t it = tigris_plan_index(plan, op->inputs_off), ot = tigris_plan_index(plan, op->outputs_off);
    const int32_t h = tigris_plan_dim(plan, it, 1), w = tigris_plan_dim(plan, it, 2);
    const int32_t c = tigris_plan_dim(plan, it, 3), wo = tigris_plan_dim(plan, ot, 2);
    const int32_t kh = op->kernel_h, kw = op->kernel_w, sh = op->stride_h, sw = op->stride_w;
    const int32_t pt = op->pad_top, pl = op->pad_left;
    const tigris_tile_ctx_t *t = &mem->tile;
    const int8_t *in = mem->tensor_ptrs[it];
    int8_t *out = mem->tensor_ptrs[ot];
    if (!in || !out || !input_rows_present(op, t, h))
        return -1;
    for (int32_t y = t->out_start; y < t->out_end; y++) {
        int8_t *orow = out + (y - t->out_row0) * wo * c;
        for (int32_t x = 0; x < wo; x++) {
            for (int32_t ch = 0; ch < c; ch++) {
                int32_t m = -128;
                for (int32_t ky = 0; ky < kh; ky++) {
                    int32_t iy = y * sh - pt + ky;
                    if (iy < 0 || iy >= h)
                        continue;
                    const int8_t *irow = in + (iy - t->in_row0) * w * c;
                    for (int32_t kx = 0; kx < kw; kx++) {
                        int32_t ix = x * sw - pl + kx;
                        if (ix >= 0 && ix < w && irow[ix * c + ch] > m)
                            m = irow[ix * c + ch];
                    }
                }
                orow[x * c + ch] = (int8_t)m;
            }
        }
    }
    return 0;
}

int tigris_ref_kernel(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                      tigris_mem_t *mem, void *user_ctx)
{
    (void)op_index;
    (void)user_ctx;
    switch (op->op_type) {
    case TIGRIS_OP_CONV:
        return tigris_conv2d_s8(plan, op, mem);
    case TIGRIS_OP_MAX_POOL:
        return tigris_maxpool2d_s8(plan, op, mem);
    default:
        return -1;
    }
}
