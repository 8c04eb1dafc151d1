//! Result-latency interlocks of a decoded run (the use-distance model of docs/xtensa.md "Timing").
//!
//! The cores issue one instruction per cycle in order; an instruction whose operand is the result
//! of an instruction with a latency L issued c cycles before waits max(0, L − c) cycles. The stall
//! is computed once per decoded run with a small scoreboard and added to the static cost of the
//! waiting instruction, so the engine pays nothing per executed instruction, and a wait after a
//! zero-overhead loop's LEND is paid once, at the exit, not on every iteration. Limits: a run does not see the results of the previous
//! block (except a zero-overhead loop body, which sees its own previous iteration, and the
//! instruction after a breakpoint, as before), and dynamic memory stalls are not counted as
//! cycles that hide latency.

use super::config::XtensaTiming;
use super::decode::{mac_fields, Insn, Op};

/// Scoreboard slots: AR 0-15, FR 0-15, MAC16 MR 0-3.
const FR: usize = 16;
const MR: usize = 32;
const SLOTS: usize = 36;

/// Latency class of a result (values in `XtensaTiming`).
#[derive(Clone, Copy)]
enum Class {
    Load,
    FpLoad,
    FpArith,
    FpConv,
}

fn latency(c: Class, t: &XtensaTiming) -> u32 {
    match c {
        Class::Load => t.load,
        Class::FpLoad => t.fp_load,
        Class::FpArith => t.fp_arith,
        Class::FpConv => t.fp_conv,
    }
}

/// Slots an instruction reads, and the slot of its result when that result comes later than the
/// next cycle (results of latency 1 never make anyone wait).
fn deps(i: &Insn) -> (u64, Option<(usize, Class)>) {
    use Op::*;
    let fr = |n: u8| 1u64 << (FR + n as usize);
    let (r, s, t) = (i.r, i.s, i.t);
    // AR operands: every AR field, as the load-use interlock always did (a conservative read set).
    let mut reads = [(1u8, r), (2, s), (4, t)]
        .iter()
        .filter(|&&(bit, _)| i.arm & bit != 0)
        .fold(0u64, |m, &(_, n)| m | 1 << n);
    reads |= match i.op {
        AddS | SubS | MulS | UnS | OeqS | UeqS | OltS | UltS | OleS | UleS => fr(s) | fr(t),
        MaddS | MsubS | MaddnS | DivnS => fr(r) | fr(s) | fr(t),
        RoundS | TruncS | FloorS | CeilS | UtruncS | MovS | AbsS | NegS | Rfr | Div0S | Recip0S
        | Sqrt0S | Rsqrt0S | Nexp01S | MksadjS | MkdadjS => fr(s),
        AddexpS | AddexpmS | MoveqzS | MovnezS | MovltzS | MovgezS | MovfS | MovtS => fr(r) | fr(s),
        Ssi | Ssip => fr(t),
        Ssx | Ssxp => fr(r),
        _ => 0,
    };
    let (_, mx, my, mw) = mac_fields(i.imm);
    let m = |n: usize| 1u64 << (MR + n);
    reads |= match i.op {
        MulDa | MulaDa | MulsDa | MulaDaLdinc | MulaDaLddec => m(mx),
        MulAd | MulaAd | MulsAd => m(my),
        MulDd | MulaDd | MulsDd | MulaDdLdinc | MulaDdLddec => m(mx) | m(my),
        _ => 0,
    };
    let write = match i.op {
        _ if i.is_ar_load() => Some((t as usize, Class::Load)),
        MulaDaLdinc | MulaDaLddec | MulaDdLdinc | MulaDdLddec | Ldinc | Lddec => {
            Some((MR + mw, Class::Load))
        }
        Lsi | Lsip => Some((FR + t as usize, Class::FpLoad)),
        Lsx | Lsxp => Some((FR + r as usize, Class::FpLoad)),
        AddS | SubS | MulS | MaddS | MsubS | MaddnS | DivnS => {
            Some((FR + r as usize, Class::FpArith))
        }
        FloatS | UfloatS => Some((FR + r as usize, Class::FpConv)),
        RoundS | TruncS | FloorS | CeilS | UtruncS => Some((r as usize, Class::FpConv)),
        _ => None,
    };
    (reads, write)
}

/// One in-order pass over `insns` from the scoreboard `ready` (cycle at which each slot's value
/// can be used, relative to the pass start): returns the stall before each instruction and the
/// cycle at which the pass ends (each instruction takes its static cost).
fn pass(
    insns: &[Insn],
    ready: &mut [i64; SLOTS],
    t: &XtensaTiming,
    mut stall: impl FnMut(usize, u32),
) -> i64 {
    let mut clock = 0i64;
    for (k, insn) in insns.iter().enumerate() {
        let (reads, write) = deps(insn);
        let need = (0..SLOTS)
            .filter(|&b| reads & (1 << b) != 0)
            .map(|b| ready[b])
            .max()
            .unwrap_or(0);
        if need > clock {
            stall(k, (need - clock) as u32);
            clock = need;
        }
        if let Some((slot, class)) = write {
            ready[slot] = clock + latency(class, t) as i64;
        }
        clock += insn.cost as i64;
    }
    clock
}

/// Add the interlock stalls of the run `insns` to the costs of the instructions that wait. `next`
/// is the instruction after a run cut by a breakpoint (its stall goes to the run's last
/// instruction, so the total is as without the breakpoint); `body` is the number of leading
/// instructions that form a zero-overhead loop body (LBEG at the run's start, LEND after them),
/// whose first instructions may wait for the previous iteration.
pub(super) fn add_interlocks(
    insns: &mut [Insn],
    next: Option<Insn>,
    body: Option<usize>,
    t: &XtensaTiming,
) {
    let mut ready = [0i64; SLOTS];
    if let Some(b) = body {
        // A first iteration from an empty scoreboard gives the state at the back-edge.
        let end = pass(&insns[..b], &mut ready, t, |_, _| {});
        for r in ready.iter_mut() {
            *r -= end;
        }
    }
    let mut all: Vec<Insn> = insns.to_vec();
    all.extend(next);
    let mut stalls = vec![0u32; all.len()];
    pass(&all, &mut ready, t, |k, s| stalls[k] = s);
    let Some(last) = insns.len().checked_sub(1) else {
        return;
    };
    for (k, &s) in stalls.iter().enumerate() {
        let to = k.min(last);
        insns[to].cost = insns[to].cost.saturating_add(s.min(255) as u8);
    }
}
