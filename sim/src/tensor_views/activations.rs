//! Views of TiGrIS activations (`--tigris-views`, or `[[view]] tigris = TENSOR`): made when the
//! runtime places a tensor of the plan in the slow arena, with the axes n, h, w, c of its stored
//! NHWC order and, unless the views file says otherwise, tiles of one tile band of rows.

use std::collections::BTreeMap;

use tigris_memmodels::MemorySystem;
use tigris_targets::Board;

use super::spec::{self, TigrisRequest};
use crate::tigris::plan::Plan;

pub struct ActivationViews {
    /// Every activation placed (`--tigris-views`), or only those the views file names.
    all: bool,
    requests: Vec<TigrisRequest>,
    matched: Vec<bool>,
    board: Board,
    /// Tensors given a view, at their first place.
    placed: BTreeMap<u16, u32>,
    notes: Vec<String>,
}

impl ActivationViews {
    /// None when neither asks for a view.
    pub fn new(all: bool, requests: Vec<TigrisRequest>, board: &Board) -> Option<ActivationViews> {
        (all || !requests.is_empty()).then(|| ActivationViews {
            all,
            matched: vec![false; requests.len()],
            requests,
            board: board.clone(),
            placed: BTreeMap::new(),
            notes: Vec::new(),
        })
    }

    /// The runtime placed plan tensor `tensor` at `base`: `dims` ([n, h, w, c]) of `elem_bytes`
    /// each. Its view is made the first time (a tensor placed again elsewhere keeps its first view).
    pub fn placed(
        &mut self,
        memory: &mut MemorySystem,
        plan: &Plan,
        tensor: u16,
        base: u32,
        dims: [u32; 4],
        elem_bytes: u32,
    ) {
        let name = plan.tensor_name(tensor);
        if let Some(&first) = self.placed.get(&tensor) {
            if first != base {
                self.note(format!(
                    "TiGrIS tensor {tensor} ({name}) was placed again at 0x{base:08x}; its view stays at 0x{first:08x}"
                ));
            }
            return;
        }
        self.placed.insert(tensor, base);
        let index = tensor.to_string();
        let request = self
            .requests
            .iter()
            .position(|r| r.tensor == name || r.tensor == index);
        if request.is_none() && !self.all {
            return;
        }
        let Some(t) = plan.tensors.get(tensor as usize) else {
            return;
        };
        // The plan's type when its width is what the placement shows, else an integer that wide.
        let dtype = t
            .dtype_name()
            .filter(|&d| spec::dtype_bits(d) == Some(elem_bytes * 8))
            .or(match elem_bytes {
                1 => Some("int8"),
                2 => Some("int16"),
                4 => Some("int32"),
                8 => Some("int64"),
                _ => None,
            });
        let Some(dtype) = dtype else {
            self.note(format!(
                "TiGrIS tensor {tensor} ({name}): no view, its elements are {elem_bytes} bytes"
            ));
            return;
        };
        let mut view_name = request
            .and_then(|r| self.requests[r].name())
            .unwrap_or(&name)
            .to_string();
        if super::has_view(memory, &view_name) {
            view_name = format!("{view_name} #{tensor}");
        }
        let made = spec::activation_view(
            request.map(|r| &self.requests[r]),
            &view_name,
            base,
            dims,
            dtype,
            plan.tile_band_rows(tensor),
            &self.board,
        );
        match made {
            Ok(view) => {
                super::add(memory, view);
                if let Some(r) = request {
                    self.matched[r] = true;
                }
            }
            Err(e) => self.note(format!("no view of TiGrIS tensor {tensor}: {e:#}")),
        }
    }

    fn note(&mut self, text: String) {
        if !self.notes.contains(&text) {
            self.notes.push(text);
        }
    }

    /// What the run should say: views that could not be made, declared ones never placed.
    pub fn notes(&self) -> Vec<String> {
        let unplaced = self
            .requests
            .iter()
            .zip(&self.matched)
            .filter(|(_, &m)| !m)
            .map(|(r, _)| {
                format!(
                    "{}: the runtime never placed that tensor in the slow arena, so the view was not made",
                    r.whence()
                )
            });
        self.notes.iter().cloned().chain(unplaced).collect()
    }
}
