//! A bitmap backend that draws text with our own font (font.rs) instead of a system or TTF font.

use plotters::prelude::*;
use plotters_backend::{
    text_anchor::{HPos, VPos},
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

use super::font;

/// Plotters' `BitMapBackend` on an RGB buffer, with `draw_text` and `estimate_text_size` answered by
/// our bitmap font; everything else is passed through.
pub struct PixelFontBackend<'a> {
    bitmap: BitMapBackend<'a>,
}

impl<'a> PixelFontBackend<'a> {
    /// `rgb` holds 3 bytes per pixel, row by row.
    pub fn new(rgb: &'a mut [u8], size: (u32, u32)) -> Self {
        PixelFontBackend {
            bitmap: BitMapBackend::with_buffer(rgb, size),
        }
    }
}

type BackendResult =
    Result<(), DrawingErrorKind<<BitMapBackend<'static> as DrawingBackend>::ErrorType>>;

impl DrawingBackend for PixelFontBackend<'_> {
    type ErrorType = <BitMapBackend<'static> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.bitmap.get_size()
    }

    fn ensure_prepared(&mut self) -> BackendResult {
        self.bitmap.ensure_prepared()
    }

    fn present(&mut self) -> BackendResult {
        self.bitmap.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> BackendResult {
        self.bitmap.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> BackendResult {
        self.bitmap.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> BackendResult {
        self.bitmap.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        (iw, ih): (u32, u32),
        src: &[u8],
    ) -> BackendResult {
        self.bitmap.blit_bitmap(pos, (iw, ih), src)
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        Ok(font::text_size(text, font::scale_for(style.size())))
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> BackendResult {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let scale = font::scale_for(style.size());
        let (width, height) = font::text_size(text, scale);
        let (width, height) = (width as i32, height as i32);
        // The anchor picks the point of the unrotated text box that lands on `pos`; rotation turns the
        // box around that point, as plotters' own text drawing does.
        let anchor = style.anchor();
        let left = match anchor.h_pos {
            HPos::Left => 0,
            HPos::Center => -width / 2,
            HPos::Right => -width,
        };
        let top = match anchor.v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let transform = style.transform();
        let step = scale as i32;
        let mut result = Ok(());
        font::for_each_pixel(text, |x, y| {
            for dy in 0..step {
                for dx in 0..step {
                    let (rx, ry) = transform
                        .transform(left + x as i32 * step + dx, top + y as i32 * step + dy);
                    if result.is_ok() {
                        result = self.bitmap.draw_pixel((pos.0 + rx, pos.1 + ry), color);
                    }
                }
            }
        });
        result
    }
}
