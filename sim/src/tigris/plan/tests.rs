//! Unit tests of the plan reader: hand-built plans of every schema, each kind of bad plan, and
//! exhaustive corruption and truncation of those, of the tigris-ml 0.12.1 schema-compatibility plans
//! vendored in sim/tests/tigris/fixtures/ and of a schema-1 plan compiled by tigris-ml 0.3.1 (which
//! must give a result or an error, never a panic).

use super::format::{
    op_type_name, MAGIC, MAX_SCHEMA, MIN_SCHEMA, NONE16, OP_SIZE, OP_SIZE_V1, OP_TYPES,
    TENSOR_MODEL_INPUT, TENSOR_MODEL_OUTPUT,
};
use super::model::{Plan, StateEntry, Subgraph};
use super::predict::Execution;
use super::reader::PlanError;

// A hand-built plan: one 3x3 conv over a 1x4x4x1 float tensor, one stage with one tile plan,
// one weight. Sections are laid out after the header and directory, 16-byte aligned.

struct Hdr {
    version: u32,
    num_tensors: u16,
    num_ops: u16,
    num_stages: u16,
    num_tile_plans: u16,
    num_weights: u16,
    num_quant: u16,
    model_io_off: u16,
    dir_off: Option<u32>,
}

fn hdr(version: u32) -> Hdr {
    Hdr {
        version,
        num_tensors: 2,
        num_ops: 1,
        num_stages: 1,
        num_tile_plans: 1,
        num_weights: 1,
        num_quant: 0,
        model_io_off: 5,
        dir_off: None,
    }
}

fn le16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn le32(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn tensor(name: u32, size: u32, shape_off: u16, flags: u8) -> Vec<u8> {
    let mut r = Vec::new();
    r.extend(name.to_le_bytes());
    r.extend(size.to_le_bytes());
    r.extend(shape_off.to_le_bytes());
    r.extend([4, 1, flags]); // ndim, dtype f32, flags
    r.extend(NONE16.to_le_bytes());
    r.push(0);
    r
}

fn conv_op(version: u32) -> Vec<u8> {
    let mut r = Vec::new();
    r.extend(12u32.to_le_bytes()); // "conv"
    r.extend([1, 1, 1, 0]); // Conv, 1 input, 1 output, stage 0
    r.extend(le16(&[0, 1])); // inputs at 0, outputs at 1
    r.extend([3, 3, 1, 1]);
    if version >= 2 {
        r.extend(le16(&[1, 1, 1, 1, 1, 1])); // pads, dilations
    } else {
        r.extend([1, 1, 1, 1, 1, 1]); // schema 1: one byte each
    }
    r.extend(le16(&[1])); // group
    r.extend(le16(&[0, NONE16])); // weight 0, no bias
    r.extend([1, 0x80, 0x7F, 0]); // fused relu, act range
    let size = if version >= 2 { OP_SIZE } else { OP_SIZE_V1 };
    assert_eq!(r.len() as u64, size);
    r
}

fn stage(tile: u16, chain_id: u16, chain_len: u16) -> Vec<u8> {
    let mut r = 128u32.to_le_bytes().to_vec();
    r.extend(le16(&[
        2, 1, 3, 1, 4, 1, tile, 0, chain_id, chain_len, 0, 0,
    ]));
    r
}

fn tile_plan(version: u32) -> Vec<u8> {
    if version >= 10 {
        let mut r = vec![1, 1, 0, 0];
        r.extend(le32(&[2, 0, 0, 0, 0, 0, 100]));
        r
    } else {
        let mut r = vec![1, if version >= 5 { 1 } else { 0 }];
        r.extend(le16(&[2, 2, 2, 3, 4]));
        r.extend(le32(&[100, 32]));
        r.extend(le16(&[0, 0]));
        r
    }
}

fn sections(version: u32) -> Vec<(u32, Vec<u8>)> {
    let strings = b"\0model\0in\0out\0conv\0w\0".to_vec(); // 0 "", 1 model, 7 in, 10 out, 14 conv, 19 w
    let mut tensors = tensor(7, 64, 0, TENSOR_MODEL_INPUT);
    tensors.extend(tensor(10, 64, 4, TENSOR_MODEL_OUTPUT));
    // tensor names: patch conv op name offset to 14
    let mut op = conv_op(version);
    op[..4].copy_from_slice(&14u32.to_le_bytes());
    let mut weights = 19u32.to_le_bytes().to_vec();
    weights.extend(0u32.to_le_bytes());
    weights.extend(36u32.to_le_bytes());
    weights.extend([0u8; 36]);
    vec![
        (1, tensors),
        (2, op),
        (3, stage(0, NONE16, 0)),
        (4, tile_plan(version)),
        (5, le16(&[0, 1, 0, 0, 1, 0, 1])),
        (6, le32(&[1, 4, 4, 1, 1, 4, 4, 1])),
        (7, strings),
        (8, weights),
    ]
}

fn build(h: &Hdr, secs: &[(u32, Vec<u8>)]) -> Vec<u8> {
    let dir_off = h.dir_off.unwrap_or(48);
    let mut body_start = 48 + (secs.len() as u64 + 1) * 8;
    body_start = body_start.div_ceil(16) * 16;
    let mut dir = Vec::new();
    let mut body = Vec::new();
    for (kind, data) in secs {
        let off = body_start + body.len() as u64;
        dir.extend(kind.to_le_bytes());
        dir.extend((off as u32).to_le_bytes());
        body.extend(data);
        while body.len() % 16 != 0 {
            body.push(0);
        }
    }
    dir.extend([0u8; 8]);
    let mut out = Vec::new();
    out.extend(MAGIC);
    out.extend(h.version.to_le_bytes());
    out.extend(0u32.to_le_bytes()); // file size, patched below
    out.extend(dir_off.to_le_bytes());
    out.extend(le16(&[
        h.num_tensors,
        h.num_ops,
        h.num_stages,
        h.num_tile_plans,
    ]));
    out.extend(1024u32.to_le_bytes());
    out.extend(128u32.to_le_bytes());
    out.extend(1u32.to_le_bytes()); // "model"
    out.extend(h.model_io_off.to_le_bytes());
    out.extend([1, 1]);
    out.extend(le16(&[h.num_weights, h.num_quant]));
    out.extend(0u32.to_le_bytes());
    assert_eq!(out.len(), 48);
    out.extend(dir);
    out.resize(body_start as usize, 0);
    out.extend(body);
    let n = out.len() as u32;
    out[8..12].copy_from_slice(&n.to_le_bytes());
    out
}

fn good(version: u32) -> Vec<u8> {
    build(&hdr(version), &sections(version))
}

/// Absolute offset of section `kind` in a built plan.
fn sec(buf: &[u8], kind: u32) -> usize {
    let mut at = u32::from_le_bytes(buf[12..16].try_into().unwrap()) as usize;
    loop {
        let k = u32::from_le_bytes(buf[at..at + 4].try_into().unwrap());
        assert_ne!(k, 0, "section {kind} not in the plan");
        if k == kind {
            return u32::from_le_bytes(buf[at + 4..at + 8].try_into().unwrap()) as usize;
        }
        at += 8;
    }
}

fn put16(buf: &mut [u8], at: usize, v: u16) {
    buf[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

fn put32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn err(buf: &[u8]) -> PlanError {
    match Plan::parse(buf) {
        Ok(_) => panic!("a bad plan was accepted"),
        Err(e) => e,
    }
}

fn with_section(version: u32, kind: u32, data: Vec<u8>) -> Vec<u8> {
    let mut s = sections(version);
    s.retain(|x| x.0 != kind);
    s.push((kind, data));
    build(&hdr(version), &s)
}

#[test]
fn a_hand_built_plan_reads_back() {
    for v in MIN_SCHEMA..=MAX_SCHEMA {
        let p = Plan::parse(&good(v)).unwrap_or_else(|e| panic!("schema {v}: {e}"));
        assert_eq!(p.header.version, v);
        assert_eq!(p.model_name, "model");
        assert_eq!(p.tensors[0].name, "in");
        assert_eq!(p.tensors[1].shape, vec![1, 4, 4, 1]);
        assert_eq!(p.ops[0].type_name(), "Conv");
        assert_eq!(p.ops[0].name, "conv");
        assert_eq!(p.ops[0].fused_activation(), "Relu");
        assert_eq!((p.ops[0].act_min, p.ops[0].act_max), (-128, 127));
        assert_eq!(p.ops[0].weight, Some(0));
        assert_eq!(p.ops[0].bias, None);
        assert_eq!(p.stages[0].tile_plan, Some(0));
        assert_eq!(
            (p.model_inputs.clone(), p.model_outputs.clone()),
            (vec![0], vec![1])
        );
        assert_eq!(p.weights[0].size_bytes, 36);
        let t = &p.tile_plans[0];
        // Schema 10 derives what 9 stores; both describe the same 2 tiles of 2 rows, rf 3, halo 2.
        assert_eq!(
            (t.tileable, t.axis, t.tile_height, t.num_tiles),
            (true, 1, 2, 2),
            "schema {v}"
        );
        assert_eq!(
            (t.halo, t.receptive_field, t.original_height),
            (2, 3, 4),
            "schema {v}"
        );
        assert_eq!(t.v10.is_some(), v >= 10);
        let pred = p.prediction(0);
        assert_eq!(pred.execution, Execution::Tiled);
        assert_eq!(pred.tiles, 2);
        if v >= 10 {
            // 64 bytes over 4 rows: 2 halo rows = 32 bytes, once per tile boundary.
            assert_eq!((pred.overhead_bytes, pred.overhead_estimated), (32, true));
        } else {
            assert_eq!((pred.overhead_bytes, pred.overhead_estimated), (32, false));
        }
        let text = p.to_text("x.tgrs");
        assert!(
            text.contains("2 tiles of 2 over 4 rows (height), halo 2, rf 3"),
            "{text}"
        );
        let j = p.to_json().unwrap();
        assert_eq!(j["schema"], v);
        assert_eq!(j["ops"][0]["type"], "Conv");
    }
}

#[test]
fn op_type_table_matches_the_v10_schema_codes() {
    assert_eq!(OP_TYPES.len(), 93);
    assert_eq!(op_type_name(1), "Conv");
    assert_eq!(op_type_name(32), "Conv1D");
    assert_eq!(op_type_name(34), "Erf");
    assert_eq!(op_type_name(91), "Dequantize");
    assert_eq!(op_type_name(92), "Gelu");
    assert_eq!(op_type_name(0), "unknown(0)");
    assert_eq!(op_type_name(93), "unknown(93)");
    let mut names: Vec<&str> = OP_TYPES[1..].to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 92, "names are unique");
}

#[test]
fn schema_2_to_4_tile_axis_and_op_stage_byte() {
    let mut b = good(4);
    // The op's stage byte is authoritative before schema 5.
    let o = sec(&b, 2);
    b[o + 7] = 3;
    let p = Plan::parse(&b).unwrap();
    assert_eq!(p.tile_plans[0].axis, 1, "v4 wrote 0 for a height tile plan");
    assert_eq!(p.ops[0].stage, 3);
    let mut b = good(5);
    let o = sec(&b, 2);
    b[o + 7] = 3;
    let p = Plan::parse(&b).unwrap();
    assert_eq!(
        (p.ops[0].stage, p.ops[0].stage_byte),
        (0, 3),
        "v5+: the stage table decides"
    );
}

#[test]
fn bad_magic() {
    let mut b = good(9);
    b[0] = b'X';
    assert!(matches!(err(&b), PlanError::BadMagic { .. }));
    assert!(matches!(err(b"\x7fELF"), PlanError::BadMagic { .. }));
    assert!(err(b"PK\x03\x04 a zip")
        .to_string()
        .contains("not a TiGrIS plan"));
}

#[test]
fn too_short() {
    assert_eq!(err(b""), PlanError::TooShort { len: 0 });
    assert_eq!(err(b"TG"), PlanError::TooShort { len: 2 });
    let b = good(9);
    assert_eq!(err(&b[..47]), PlanError::TooShort { len: 47 });
}

#[test]
fn unknown_schema() {
    for v in [0, 11, 0xFFFF_FFFF] {
        let mut b = good(9);
        put32(&mut b, 4, v);
        assert_eq!(err(&b), PlanError::UnsupportedVersion { version: v });
    }
    let mut b = good(9);
    put32(&mut b, 4, 11);
    assert!(err(&b).to_string().contains("schema version 11"));
}

#[test]
fn truncated_or_padded_file() {
    let b = good(9);
    let e = err(&b[..b.len() - 1]);
    assert!(matches!(e, PlanError::FileSizeMismatch { .. }), "{e}");
    assert!(e.to_string().contains("file_size"));
    let mut p = b.clone();
    p.push(0);
    assert!(matches!(err(&p), PlanError::FileSizeMismatch { .. }));
}

#[test]
fn directory_errors() {
    let mut h = hdr(9);
    h.dir_off = Some(16);
    assert_eq!(
        err(&build(&h, &sections(9))),
        PlanError::DirectoryInHeader { offset: 16 }
    );

    // Directory at the very end: no room for the end entry.
    let mut b = good(9);
    let n = b.len() as u32;
    put32(&mut b, 12, n - 4);
    assert!(matches!(err(&b), PlanError::NoDirectoryEnd { .. }));

    let mut s = sections(9);
    s.push((14, vec![0; 4]));
    assert!(matches!(
        err(&build(&hdr(9), &s)),
        PlanError::UnknownSection { kind: 14, .. }
    ));

    let mut s = sections(9);
    s.push((7, b"\0".to_vec()));
    assert!(matches!(
        err(&build(&hdr(9), &s)),
        PlanError::DuplicateSection {
            name: "strings",
            ..
        }
    ));

    let mut b = good(9);
    let len = b.len() as u32;
    put32(&mut b, 48 + 4, len + 1); // first entry: tensors
    assert!(matches!(
        err(&b),
        PlanError::SectionPastEnd {
            name: "tensors",
            ..
        }
    ));

    let mut b = good(9);
    put32(&mut b, 48 + 4, 40); // tensors inside the header
    assert!(matches!(
        err(&b),
        PlanError::SectionOverlapsDirectory {
            name: "tensors",
            ..
        }
    ));
}

#[test]
fn missing_sections() {
    for (kind, name) in [
        (1, "tensors"),
        (2, "ops"),
        (5, "index_pool"),
        (6, "shape_pool"),
        (7, "strings"),
        (3, "stages"),
        (4, "tile_plans"),
        (8, "weights"),
    ] {
        let mut s = sections(9);
        s.retain(|x| x.0 != kind);
        assert_eq!(
            err(&build(&hdr(9), &s)),
            PlanError::MissingSection { name, kind },
            "{name}"
        );
    }
    // Without stages, tile plans or weights they are not needed.
    let mut h = hdr(9);
    (h.num_stages, h.num_tile_plans, h.num_weights) = (0, 0, 0);
    let mut s = sections(9);
    s.retain(|x| ![3, 4, 8].contains(&x.0));
    s[1].1[30..32].copy_from_slice(&NONE16.to_le_bytes()); // the op's weight
    let p = Plan::parse(&build(&h, &s)).unwrap();
    assert!(p.stages.is_empty() && p.weights.is_empty());
}

#[test]
fn tables_longer_than_their_sections() {
    for (field, name) in [
        (16, "tensors"),
        (18, "ops"),
        (20, "stages"),
        (22, "tile_plans"),
    ] {
        let mut b = good(9);
        put16(&mut b, field, 200);
        let e = err(&b);
        assert!(
            matches!(&e, PlanError::OutOfSection { section, .. } if *section == name),
            "{name}: {e}"
        );
    }
    // Two 24-byte tile plans (48 bytes) fit schema 9 but not schema 10's 32-byte records.
    let mut two = tile_plan(9);
    two.extend(tile_plan(9));
    let mut h = hdr(9);
    h.num_tile_plans = 2;
    let mut s = sections(9);
    s[3].1 = two;
    assert!(Plan::parse(&build(&h, &s)).is_ok());
    h.version = 10;
    assert!(matches!(
        err(&build(&h, &s)),
        PlanError::OutOfSection {
            section: "tile_plans",
            ..
        }
    ));
    let mut b = good(9);
    put16(&mut b, 40, 50);
    assert!(matches!(
        err(&b),
        PlanError::OutOfSection {
            section: "weights",
            ..
        }
    ));
}

#[test]
fn out_of_range_offsets() {
    // String offset past the strings section.
    let mut b = good(9);
    put32(&mut b, 32, 5000);
    let e = err(&b);
    assert!(
        matches!(
            e,
            PlanError::OutOfSection {
                section: "strings",
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("model_name_str"));
    // Shape offset past the shape pool.
    let mut b = good(9);
    let t = sec(&b, 1);
    put16(&mut b, t + 8, 1000);
    let e = err(&b);
    assert!(
        matches!(
            e,
            PlanError::OutOfSection {
                section: "shape_pool",
                ..
            }
        ) && e.to_string().contains("tensor 0"),
        "{e}"
    );
    // Index-pool offsets: op inputs, stage ops, model I/O.
    let mut b = good(9);
    let o = sec(&b, 2);
    put16(&mut b, o + 8, 4000);
    assert!(matches!(
        err(&b),
        PlanError::OutOfSection {
            section: "index_pool",
            ..
        }
    ));
    let mut b = good(9);
    let s = sec(&b, 3);
    put16(&mut b, s + 4, 4000);
    assert!(err(&b).to_string().contains("stage 0"));
    let mut h = hdr(9);
    h.model_io_off = 4000;
    let e = err(&build(&h, &sections(9)));
    assert!(e.to_string().contains("model_io_off"), "{e}");
    // Weight data past its section.
    let mut b = good(9);
    let w = sec(&b, 8);
    put32(&mut b, w + 8, 100_000);
    assert!(matches!(
        err(&b),
        PlanError::OutOfSection {
            section: "weights",
            ..
        }
    ));
}

#[test]
fn bad_strings() {
    // The strings section fills whole 16-byte units and its last string ("w…", the weight's
    // name) has no NUL before the next section starts.
    let mut strings = b"\0model\0in\0out\0conv\0w".to_vec();
    strings.resize(32, b'x');
    let e = err(&with_section(9, 7, strings));
    assert!(
        matches!(e, PlanError::UnterminatedString { offset: 19, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("weight 0"), "{e}");
    let b = with_section(9, 7, b"\0model\0\xff\xfe\0out\0conv\0w\0".to_vec());
    assert!(matches!(err(&b), PlanError::BadString { offset: 7, .. }));
}

#[test]
fn bad_references() {
    let mut b = good(9);
    let o = sec(&b, 5);
    put16(&mut b, o, 9); // op input -> tensor 9
    assert!(matches!(
        err(&b),
        PlanError::BadReference {
            target: "tensor",
            index: 9,
            ..
        }
    ));
    let mut b = good(9);
    let o = sec(&b, 2);
    put16(&mut b, o + 30, 5); // weight 5
    assert!(matches!(
        err(&b),
        PlanError::BadReference {
            target: "weight",
            index: 5,
            ..
        }
    ));
    let mut b = good(9);
    let s = sec(&b, 3);
    put16(&mut b, s + 16, 3); // tile plan 3
    assert!(matches!(
        err(&b),
        PlanError::BadReference {
            target: "tile plan",
            index: 3,
            ..
        }
    ));
    let mut b = good(9);
    let t = sec(&b, 1);
    put16(&mut b, t + 13, 0); // quant param 0 of none
    assert!(matches!(
        err(&b),
        PlanError::BadReference {
            target: "quant param",
            ..
        }
    ));
    let mut b = good(9);
    let i = sec(&b, 5);
    put16(&mut b, i + 2 * 5, 7); // model input -> tensor 7
    assert!(matches!(
        err(&b),
        PlanError::BadReference {
            target: "tensor",
            index: 7,
            ..
        }
    ));
}

#[test]
fn stage_table_must_partition_the_ops() {
    // The stage lists op 0 twice.
    let mut s = sections(9);
    s[4].1 = le16(&[0, 1, 0, 0, 1, 0, 1]);
    let mut st = 128u32.to_le_bytes().to_vec();
    st.extend(le16(&[2, 2, 3, 1, 4, 1, 0, 0, NONE16, 0, 0, 0]));
    s[2].1 = st; // ops at index-pool 2..4 = [0, 0]
    let e = err(&build(&hdr(9), &s));
    assert!(e.to_string().contains("already belongs"), "{e}");
    // No stage runs the op.
    let mut s = sections(9);
    let mut st = 128u32.to_le_bytes().to_vec();
    st.extend(le16(&[2, 0, 3, 1, 4, 1, 0, 0, NONE16, 0, 0, 0]));
    s[2].1 = st;
    assert!(err(&build(&hdr(9), &s))
        .to_string()
        .contains("belongs to no stage"));
    // The stage lists op 5.
    let mut b = good(9);
    let i = sec(&b, 5);
    put16(&mut b, i + 4, 5);
    assert!(matches!(
        err(&b),
        PlanError::BadReference {
            target: "op",
            index: 5,
            ..
        }
    ));
}

#[test]
fn chains_must_be_consistent() {
    for (chain_id, chain_len, want) in [
        (7, 0, "refers to stage 7"),
        (0, 2, "past the 1-stage table"),
        (NONE16, 1, "without a head"),
    ] {
        let mut s = sections(9);
        s[2].1 = stage(0, chain_id, chain_len);
        let e = err(&build(&hdr(9), &s));
        assert!(e.to_string().contains(want), "{e}");
    }
}

#[test]
fn optional_sections_are_bounds_checked() {
    // Quant params: count differs from the header.
    let mut q = le16(&[1, 0]);
    q.extend(1.0f32.to_le_bytes());
    q.extend(le32(&[0]));
    q.extend(le16(&[1, 0, 0, 0]));
    let b = with_section(9, 9, q.clone());
    assert!(err(&b).to_string().contains("num_quant_params"));
    // Per-channel arrays beyond the section.
    let mut h = hdr(9);
    h.num_quant = 1;
    let mut q2 = le16(&[1, 0]);
    q2.extend(1.0f32.to_le_bytes());
    q2.extend(le32(&[0]));
    q2.extend(le16(&[4, 0, 100, 0]));
    let mut s = sections(9);
    s.push((9, q2));
    assert!(matches!(
        err(&build(&h, &s)),
        PlanError::OutOfSection {
            section: "quant_params",
            ..
        }
    ));
    let mut s = sections(9);
    s.push((9, q));
    assert!(Plan::parse(&build(&h, &s)).is_ok());
    // Weight blocks: unknown compression, blob past the section.
    let b = with_section(9, 10, le16(&[0, 7]));
    assert!(err(&b).to_string().contains("compression 7"));
    let mut wb = le16(&[1, 1, 0, 0, 1, 0]);
    wb.extend(le32(&[0, 5000, 36]));
    assert!(matches!(
        err(&with_section(9, 10, wb)),
        PlanError::OutOfSection {
            section: "weight_blocks",
            ..
        }
    ));
    // Op attributes: payload past the section, wrong size for its kind, unknown op.
    let mut a = le16(&[1, 0, 0]);
    a.extend([1, 200]);
    a.extend(le32(&[0]));
    assert!(matches!(
        err(&with_section(9, 11, a)),
        PlanError::OutOfSection {
            section: "op_attributes",
            ..
        }
    ));
    let mut a = le16(&[1, 0, 0]);
    a.extend([2, 3]); // epsilon is an f32: 3 bytes is wrong
    a.extend(le32(&[0]));
    a.extend([0, 0, 0]);
    assert!(err(&with_section(9, 11, a)).to_string().contains("epsilon"));
    let mut a = le16(&[1, 0, 4]);
    a.extend([1, 1]);
    a.extend(le32(&[0]));
    a.push(0);
    assert!(matches!(
        err(&with_section(9, 11, a)),
        PlanError::BadReference {
            target: "op",
            index: 4,
            ..
        }
    ));
    // State: initial value past the section; subgraph lists past the index pool.
    let mut st = le16(&[1, 0]);
    st.extend(le32(&[64]));
    st.extend(le16(&[0, NONE16]));
    st.extend(le32(&[0, 64, 24]));
    assert!(matches!(
        err(&with_section(10, 12, st)),
        PlanError::OutOfSection {
            section: "state",
            ..
        }
    ));
    let mut sg = le16(&[1, 0]);
    sg.extend(le16(&[0, 1, 900, 1, 0, 1]));
    assert!(matches!(
        err(&with_section(10, 13, sg)),
        PlanError::OutOfSection {
            section: "index_pool",
            ..
        }
    ));
    // Headers of optional sections that do not fit: an empty section last ends with the plan.
    for (kind, name) in [
        (9, "quant_params"),
        (10, "weight_blocks"),
        (11, "op_attributes"),
        (12, "state"),
        (13, "subgraphs"),
    ] {
        let mut s = sections(10);
        s.push((kind, vec![]));
        let e = err(&build(&hdr(10), &s));
        assert!(
            matches!(&e, PlanError::OutOfSection { section, .. } if *section == name),
            "{name}: {e}"
        );
    }
}

#[test]
fn schema_10_state_and_subgraphs() {
    let mut st = le16(&[1, 0]);
    st.extend(le32(&[64]));
    st.extend(le16(&[0, 1]));
    st.extend(le32(&[0, 64, 24]));
    st.extend([7u8; 64]);
    let mut s = sections(10);
    s.push((12, st));
    let mut sg = le16(&[1, 0]);
    sg.extend(le16(&[0, 1, 3, 1, 4, 1]));
    s.push((13, sg));
    let p = Plan::parse(&build(&hdr(10), &s)).unwrap();
    assert_eq!(p.state_bytes, 64);
    assert_eq!(
        p.state[0],
        StateEntry {
            input: 0,
            output: Some(1),
            offset: 0,
            size_bytes: 64,
            initial: 24
        }
    );
    assert_eq!(
        p.subgraphs[0],
        Subgraph {
            first_stage: 0,
            num_stages: 1,
            inputs: vec![0],
            outputs: vec![1]
        }
    );
    assert_eq!(p.requirements().state_bytes, 64);
}

/// Every byte changed three ways and every truncation (with file_size patched to match, so the
/// deeper checks run) must give Ok or Err, never a panic.
fn no_panic_on_any_corruption(buf: &[u8]) {
    for i in 0..buf.len() {
        for v in [0x00, 0xFF, buf[i].wrapping_add(1)] {
            let mut b = buf.to_vec();
            b[i] = v;
            let _ = Plan::parse(&b).map(|p| (p.to_json(), p.to_text("x"), p.predictions()));
        }
    }
    for n in 0..buf.len() {
        let mut b = buf[..n].to_vec();
        if n >= 12 {
            let len = n as u32;
            b[8..12].copy_from_slice(&len.to_le_bytes());
        }
        // Cutting padding or unread blob bytes can leave a valid plan: only no panic is required.
        let _ = Plan::parse(&b);
    }
}

#[test]
fn corrupted_hand_built_plans_never_panic() {
    for v in [1, 2, 4, 9, 10] {
        no_panic_on_any_corruption(&good(v));
    }
}

#[test]
fn corrupted_tigris_fixtures_never_panic() {
    let fixtures: [&[u8]; 9] = [
        include_bytes!("../../../tests/tigris/fixtures/schema_compat/schema-v2-linear.tgrs"),
        include_bytes!("../../../tests/tigris/fixtures/schema_compat/schema-v3-qdq-conv.tgrs"),
        include_bytes!("../../../tests/tigris/fixtures/schema_compat/schema-v4-transpose.tgrs"),
        include_bytes!("../../../tests/tigris/fixtures/schema_compat/schema-v5-conv1d-axis.tgrs"),
        include_bytes!(
            "../../../tests/tigris/fixtures/schema_compat/schema-v6-interface-dtype.tgrs"
        ),
        include_bytes!("../../../tests/tigris/fixtures/schema_compat/schema-v7-tensor-layout.tgrs"),
        include_bytes!("../../../tests/tigris/fixtures/schema_compat/schema-v8-layer-norm.tgrs"),
        include_bytes!(
            "../../../tests/tigris/fixtures/schema_compat/schema-v9-binary-requant.tgrs"
        ),
        include_bytes!("../../../tests/tigris/fixtures/schema_compat/schema-v10-state.tgrs"),
    ];
    for (i, f) in fixtures.iter().enumerate() {
        let p = Plan::parse(f).unwrap_or_else(|e| panic!("fixture {i}: {e}"));
        assert_eq!(p.header.version, i as u32 + 2);
        no_panic_on_any_corruption(f);
    }
}

/// A schema-1 plan compiled by tigris-ml 0.3.1 from `convstack_qdq` of sim/tests/tigris/make_models.py
/// at 8K (int8, per-channel quant params, five tiled stages).
const SCHEMA1_PLAN: &[u8] =
    include_bytes!("../../../tests/tigris/fixtures/schema1/convstack_qdq_8K.tgrs");

#[test]
fn schema_1_ops_pads_quant_and_stage_flags() {
    // One-byte pads and dilations in a 32-byte op.
    let mut b = good(1);
    let o = sec(&b, 2);
    b[o + 16..o + 22].copy_from_slice(&[2, 3, 4, 5, 6, 7]);
    put16(&mut b, o + 22, 8);
    let p = Plan::parse(&b).unwrap();
    let sp = &p.ops[0].spatial;
    assert_eq!(
        (sp.pad_top, sp.pad_bottom, sp.pad_left, sp.pad_right),
        (2, 3, 4, 5)
    );
    assert_eq!((sp.dilation_h, sp.dilation_w, sp.group), (6, 7, 8));
    assert_eq!(p.ops[0].weight, Some(0));
    assert_eq!((p.ops[0].act_min, p.ops[0].act_max), (-128, 127));
    // The op's stage byte is authoritative, as before schema 5.
    b[o + 7] = 3;
    assert_eq!(Plan::parse(&b).unwrap().ops[0].stage, 3);
    // The stage record's last field is reserved in schema 1, flags from schema 2.
    let mut b = good(1);
    let s = sec(&b, 3);
    put16(&mut b, s + 26, 1);
    assert_eq!(Plan::parse(&b).unwrap().stages[0].flags, 0);
    let mut b2 = good(2);
    let s2 = sec(&b2, 3);
    put16(&mut b2, s2 + 26, 1);
    assert_eq!(Plan::parse(&b2).unwrap().stages[0].flags, 1);
    // Quant params: the last u16 is a pad, not a page, before schema 3.
    let mut q = le16(&[1, 8]);
    q.extend(1.0f32.to_le_bytes());
    q.extend(le32(&[0]));
    q.extend(le16(&[4, 0, 4, 9]));
    q.extend(le32(&[10, 11, 12, 13, -1, -2, -3, -4]));
    for (v, ok) in [(1, true), (2, true), (3, false)] {
        let mut h = hdr(v);
        h.num_quant = 1;
        let mut s = sections(v);
        s.push((9, q.clone()));
        match Plan::parse(&build(&h, &s)) {
            Ok(p) => {
                assert!(ok, "schema {v}: page 9 is past the pool");
                assert_eq!(p.quant_params[0].multipliers, vec![10, 11, 12, 13]);
                assert_eq!(p.quant_params[0].shifts, vec![-1, -2, -3, -4]);
            }
            Err(e) => {
                assert!(!ok, "schema {v}: {e}");
                assert!(e.to_string().contains("page 9"), "{e}");
            }
        }
    }
}

#[test]
fn schema_1_truncated_op_table_is_named() {
    // The header counts two 32-byte schema-1 ops; the section (16-byte aligned) holds 48 bytes.
    let mut h = hdr(1);
    h.num_ops = 2;
    let mut s = sections(1);
    let op = s[1].1.clone();
    s[1].1.extend(&op[..15]);
    let e = err(&build(&h, &s));
    assert!(
        matches!(&e, PlanError::OutOfSection { section: "ops", .. }),
        "{e}"
    );
    let text = e.to_string();
    assert!(text.contains("op table (2 records of 32 bytes)"), "{text}");
    // Schema 2 needs 38-byte records: 64 bytes, two schema-1 ops' worth, are too few.
    let mut h2 = hdr(2);
    h2.num_ops = 2;
    let mut s2 = sections(2);
    let op2 = s2[1].1.clone();
    s2[1].1.extend(&op2[..26]);
    assert!(err(&build(&h2, &s2))
        .to_string()
        .contains("op table (2 records of 38 bytes)"));
}

#[test]
fn schema_1_plan_of_tigris_ml_0_3_reads_and_never_panics() {
    let p = Plan::parse(SCHEMA1_PLAN).unwrap();
    assert_eq!(p.header.version, 1);
    assert_eq!(p.model_name, "convstack_qdq");
    assert_eq!(p.ops[0].name, "conv5");
    assert_eq!(p.ops[0].type_name(), "Conv");
    let sp = &p.ops[0].spatial;
    assert_eq!(
        (sp.kernel_h, sp.stride_h, sp.pad_top, sp.pad_right, sp.group),
        (3, 1, 1, 1, 1)
    );
    assert_eq!(p.quant_params.len(), 10);
    assert!(p.quant_params.iter().any(|q| q.multipliers.len() == 8));
    assert!(p.tile_plans.iter().all(|t| t.axis == 1 && t.tileable));
    no_panic_on_any_corruption(SCHEMA1_PLAN);
}
